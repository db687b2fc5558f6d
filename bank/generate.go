package bank

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"time"

	"sandbank/bank/validate"
)

// NewAccountNumber returns a valid Norwegian BBAN (MOD11) in the sandbox's
// bank range and its IBAN, not used by any sandbox account.
func (s *Service) NewAccountNumber() (bban, iban string, err error) {
	err = s.view("make an account number", func(tx Tx) error {
		for range 50 {
			n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
			if err != nil {
				return err
			}
			bban = norwegianBBAN(fmt.Sprintf("1503%06d", n.Int64()))
			if _, err := tx.AccountByBBAN(bban); err == ErrNotFound {
				iban, err = validate.NorwegianIBAN(bban)
				return err
			}
		}
		return fmt.Errorf("no free account number found")
	})
	return bban, iban, err
}

// generationBatch is how many generated transactions one storage
// transaction stores: small enough to report progress and stop soon when
// asked, large enough to be fast.
const generationBatch = 20_000

// monthsFor spreads count generated transactions over a plausible span.
func monthsFor(count int) int { return max(6, min(120, count/5000+1)) }

// GenerateTransactions adds count realistic transactions of a History
// profile (everyday, savings, business, currency or tax) to an account,
// spread over the months before today. They are validated and stored in
// batches; progress, when not nil, is called with the number done after
// each batch. When ctx ends, generation stops after the current batch and
// the batches stored so far stay: the result says how many.
func (s *Service) GenerateTransactions(ctx context.Context, accountID, profile string, count int, progress func(done int)) (int, error) {
	var v Violations
	h := checkHistory(&v, "", History{Profile: profile, Count: count, Months: monthsFor(count)}, false)
	if count < 1 {
		v.Format("count", "must be at least 1")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	a, err := s.Account(accountID)
	if err != nil {
		return 0, err
	}
	today := s.Today()
	plan := planHistory(h, fmt.Sprint(accountID, time.Now().UnixNano()), today)
	done := 0
	for done < len(plan) {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		batch := accountHistory(plan[done:min(len(plan), done+generationBatch)], a.Account)
		err := s.write("generate transactions", func(tx Tx) error {
			_, err := addTransactions(tx, a.Account, "", batch, nil, today)
			return err
		}, Event{Kind: EventTransactions, ID: accountID})
		if err != nil {
			return done, err
		}
		done += len(batch)
		if progress != nil {
			progress(done)
		}
	}
	return done, nil
}

// GenerateCardTransactions adds count realistic card transactions (the
// card profile) to a card account, like GenerateTransactions.
func (s *Service) GenerateCardTransactions(ctx context.Context, cardAccountID string, count int, progress func(done int)) (int, error) {
	var v Violations
	h := checkHistory(&v, "", History{Profile: "card", Count: count, Months: monthsFor(count)}, true)
	if count < 1 {
		v.Format("count", "must be at least 1")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	c, err := s.CardAccount(cardAccountID)
	if err != nil {
		return 0, err
	}
	today := s.Today()
	now := time.Now()
	plan := planHistory(h, fmt.Sprint(cardAccountID, now.UnixNano()), today)
	prefix := fmt.Sprintf("G%x", now.UnixNano()%0xfffff)
	done := 0
	for done < len(plan) {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		batch := cardHistory(plan[done:min(len(plan), done+generationBatch)], c.CardAccount, today, prefix, done)
		err := s.write("generate card transactions", func(tx Tx) error {
			_, err := addCardTransactions(tx, c.CardAccount, "", batch, today)
			return err
		}, Event{Kind: EventCardTransactions, ID: cardAccountID})
		if err != nil {
			return done, err
		}
		done += len(batch)
		if progress != nil {
			progress(done)
		}
	}
	return done, nil
}
