package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"sandbank/bank"
)

func payment(seq uint64, status string) bank.Payment {
	return bank.Payment{
		ID: bank.FormatID(bank.KindPayment, 0, seq), TPPID: "NO-FSA-1", Service: bank.ServiceSingle, Product: bank.ProductNDCT,
		Status: status, Items: []bank.PaymentItem{{Amount: decimal.NewFromInt(int64(seq)), Currency: "NOK"}},
		Request: bank.PaymentRequest{CreditorName: "Kreditor"},
	}
}

func TestPayments_StatusIndexAndPages(t *testing.T) {
	db := openDB(t)
	update(t, db, func(tx bank.Tx) error {
		for seq := uint64(1); seq <= 10; seq++ {
			status := bank.StatusRCVD
			if seq%2 == 0 {
				status = bank.StatusACTC
			}
			if err := tx.PutPayment(payment(seq, status)); err != nil {
				return err
			}
		}
		// Moving a payment moves it in the index; its request stays.
		p := payment(3, bank.StatusACSC)
		p.Request = bank.PaymentRequest{}
		return tx.PutPayment(p)
	})
	view(t, db, func(tx bank.Tx) error {
		rcvd, _ := tx.PaymentIDs(bank.StatusRCVD)
		actc, _ := tx.PaymentIDs(bank.StatusACTC)
		acsc, _ := tx.PaymentIDs(bank.StatusACSC)
		if len(rcvd) != 4 || len(actc) != 5 || len(acsc) != 1 || acsc[0] != bank.FormatID(bank.KindPayment, 0, 3) {
			t.Errorf("index: %d RCVD, %d ACTC, %v ACSC", len(rcvd), len(actc), acsc)
		}
		if rcvd[0] != bank.FormatID(bank.KindPayment, 0, 1) || rcvd[3] != bank.FormatID(bank.KindPayment, 0, 9) {
			t.Errorf("not in creation order: %v", rcvd)
		}
		if r, err := tx.PaymentRequest(bank.FormatID(bank.KindPayment, 0, 3)); err != nil || r.CreditorName != "Kreditor" {
			t.Errorf("the request was overwritten: %+v %v", r, err)
		}
		all, total, err := tx.Payments(bank.PaymentQuery{Offset: 2, Limit: 3})
		if err != nil || total != 10 || len(all) != 3 || all[0].ID != bank.FormatID(bank.KindPayment, 0, 8) {
			t.Errorf("page of all: %d of %d, first %v, %v", len(all), total, all, err)
		}
		page, total, _ := tx.Payments(bank.PaymentQuery{Status: bank.StatusACTC, Limit: 2})
		if total != 5 || len(page) != 2 || page[0].ID != bank.FormatID(bank.KindPayment, 0, 10) || page[1].ID != bank.FormatID(bank.KindPayment, 0, 8) {
			t.Errorf("page of ACTC: %d of %d", len(page), total)
		}
		last, total, _ := tx.Payments(bank.PaymentQuery{Status: bank.StatusRCVD, Offset: 3, Limit: 10})
		if total != 4 || len(last) != 1 || last[0].ID != bank.FormatID(bank.KindPayment, 0, 1) {
			t.Errorf("last page of RCVD: %d of %d", len(last), total)
		}
		none, total, _ := tx.Payments(bank.PaymentQuery{Status: bank.StatusPART, Limit: 10})
		if total != 0 || len(none) != 0 {
			t.Errorf("PART: %d", total)
		}
		if _, err := tx.Payment("enc!!nope"); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("unknown payment: %v", err)
		}
		return nil
	})
}

func TestPayments_DuplicatesWithinAWindow(t *testing.T) {
	db := openDB(t)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	p1, p2 := bank.FormatID(bank.KindPayment, 0, 1), bank.FormatID(bank.KindPayment, 0, 2)
	update(t, db, func(tx bank.Tx) error {
		if err := tx.PutDuplicate("key", p1, t0); err != nil {
			return err
		}
		return tx.PutDuplicate("key", p2, t0.Add(2*time.Hour))
	})
	view(t, db, func(tx bank.Tx) error {
		if ids, _ := tx.Duplicates("key", t0.Add(-time.Hour)); len(ids) != 2 {
			t.Errorf("both within the window: %v", ids)
		}
		if ids, _ := tx.Duplicates("key", t0.Add(time.Hour)); len(ids) != 1 || ids[0] != p2 {
			t.Errorf("since an hour later: %v", ids)
		}
		if ids, _ := tx.Duplicates("other", t0.Add(-time.Hour)); len(ids) != 0 {
			t.Errorf("another key: %v", ids)
		}
		return nil
	})
	// A new entry drops the key's entries older than the window.
	update(t, db, func(tx bank.Tx) error {
		return tx.PutDuplicate("key", bank.FormatID(bank.KindPayment, 0, 3), t0.Add(25*time.Hour))
	})
	view(t, db, func(tx bank.Tx) error {
		if ids, _ := tx.Duplicates("key", time.Time{}); len(ids) != 2 {
			t.Errorf("after pruning: %v", ids)
		}
		return nil
	})
}

func TestBatchRuns_KeepTheNewest(t *testing.T) {
	db := openDB(t)
	update(t, db, func(tx bank.Tx) error {
		for seq := uint64(1); seq <= bank.MaxBatchRunsKept+20; seq++ {
			if err := tx.PutBatchRun(bank.BatchRun{ID: bank.FormatID(bank.KindBatchRun, 0, seq), Trigger: bank.TriggerSchedule}); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, db, func(tx bank.Tx) error {
		all, total, _ := tx.BatchRuns(0, 10_000)
		if len(all) != bank.MaxBatchRunsKept || total != bank.MaxBatchRunsKept || all[0].ID != bank.FormatID(bank.KindBatchRun, 0, bank.MaxBatchRunsKept+20) {
			t.Errorf("%d runs kept, newest %s", len(all), all[0].ID)
		}
		if few, total, _ := tx.BatchRuns(1, 3); len(few) != 3 || total != bank.MaxBatchRunsKept || few[0].ID != all[1].ID {
			t.Errorf("offset 1, limit 3: %d of %d", len(few), total)
		}
		if _, err := tx.BatchRun(bank.FormatID(bank.KindBatchRun, 0, 1)); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("a report no longer kept: %v", err)
		}
		if r, err := tx.BatchRun(all[0].ID); err != nil || r.ID != all[0].ID {
			t.Errorf("the newest by its id: %+v %v", r, err)
		}
		return nil
	})
}

func TestDeleteTransaction_PendingAndBooked(t *testing.T) {
	db := openDB(t)
	acct := bank.FormatID(bank.KindAccount, 0, 7)
	day := bank.Date{Year: 2026, Month: time.November, Day: 2}
	booked := bank.Transaction{ID: bank.FormatID(bank.KindTransaction, 7, 1), Amount: decimal.NewFromInt(-5), Currency: "NOK", BookingDate: day, ValueDate: day}
	pending := bank.Transaction{ID: bank.FormatID(bank.KindTransaction, 7, 2), Amount: decimal.NewFromInt(-6), Currency: "NOK", BookingDate: day, ValueDate: day, Pending: true}
	update(t, db, func(tx bank.Tx) error { return tx.PutTransactions(acct, []bank.Transaction{booked, pending}) })
	update(t, db, func(tx bank.Tx) error {
		if err := tx.DeleteTransaction(acct, pending.ID); err != nil {
			return err
		}
		if err := tx.DeleteTransaction(acct, booked.ID); err != nil {
			return err
		}
		if err := tx.DeleteTransaction(acct, booked.ID); !errors.Is(err, bank.ErrNotFound) {
			t.Errorf("deleted twice: %v", err)
		}
		return nil
	})
	view(t, db, func(tx bank.Tx) error {
		page, _ := tx.Transactions(acct, bank.TxQuery{Limit: 10})
		left, _ := tx.PendingTransactions(acct)
		if page.Total != 0 || len(left) != 0 {
			t.Errorf("%d booked and %d pending left", page.Total, len(left))
		}
		return nil
	})
}
