package bank

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// NewAccountNumber returns a valid Norwegian BBAN (MOD11) in the sandbox's
// bank range and its IBAN, not used by any sandbox account.
func (s *Sandbox) NewAccountNumber() (bban, iban string, err error) {
	err = s.view("make an account number", func(tx Tx) error {
		for range 50 {
			n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
			if err != nil {
				return err
			}
			bban = norwegianBBAN(fmt.Sprintf("1503%06d", n.Int64()))
			if _, err := tx.AccountByBBAN(bban); errors.Is(err, ErrNotFound) {
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
const generationBatch = 5_000

// monthsFor spreads count generated transactions over a plausible span.
func monthsFor(count int) int { return max(6, min(120, count/5000+1)) }

// GenerateTransactions adds count realistic transactions of a History
// profile (everyday, savings, business, currency or tax) to an account,
// spread over the months before today. They are validated and stored in
// batches; progress, when not nil, is called with the number done after
// each batch. When ctx ends, generation stops after the current batch and
// the batches stored so far stay: the result says how many.
func (s *Sandbox) GenerateTransactions(ctx context.Context, accountID, profile string, count int, progress func(done int)) (int, error) {
	a, err := s.Account(accountID)
	if err != nil {
		return 0, err
	}
	return s.generate(ctx, accountID, History{Profile: profile, Count: count}, false, progress, func(plan []generated, _ int, today Date) func(Tx) error {
		txs := accountHistory(plan, a.Account)
		return func(tx Tx) error {
			_, err := AddTransactionsIn(tx, &apierr.Violations{}, a.Account, "", 0, txs, nil, today, false)
			return err
		}
	}, Event{Kind: EventTransactions, ID: accountID})
}

// GenerateCardTransactions adds count realistic card transactions (the
// card profile) to a card account, like GenerateTransactions.
func (s *Sandbox) GenerateCardTransactions(ctx context.Context, cardAccountID string, count int, progress func(done int)) (int, error) {
	c, err := s.CardAccount(cardAccountID)
	if err != nil {
		return 0, err
	}
	prefix := fmt.Sprintf("G%x", time.Now().UnixNano()%0xfffff) // ids unique across generations
	return s.generate(ctx, cardAccountID, History{Profile: "card", Count: count}, true, progress, func(plan []generated, first int, today Date) func(Tx) error {
		txs := cardHistory(plan, c.CardAccount, today, prefix, first)
		return func(tx Tx) error {
			_, err := AddCardTransactionsIn(tx, &apierr.Violations{}, c.CardAccount, "", 0, txs, today, false)
			return err
		}
	}, Event{Kind: EventCardTransactions, ID: cardAccountID}, Event{Kind: EventCardAccounts, ID: cardAccountID})
}

// generate plans a history and stores it batch by batch, one storage
// transaction and one event per batch: batch fills in a batch of the plan,
// from its first'th transaction, and returns the write that stores it.
// The plan is never held whole (plan). A history is the bank's own data:
// it has no oddities to warn about, and what it copies from the account
// (a maskedPan masked with x) was accepted with the account.
func (s *core) generate(ctx context.Context, id string, h History, card bool, progress func(int), batch func(plan []generated, first int, today Date) func(Tx) error, events ...Event) (int, error) {
	var v apierr.Violations
	h.Months = monthsFor(h.Count)
	h = CheckHistory(&v, "", h, card)
	if h.Count < 1 {
		v.Format("count", "must be at least 1")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	today := s.Today()
	p := newPlan(h, fmt.Sprint(id, time.Now().UnixNano()), today)
	done := 0
	for done < p.n {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		chunk := p.take(generationBatch)
		if err := s.write("generate transactions", batch(chunk, done, today), events...); err != nil {
			return done, err
		}
		done += len(chunk)
		if progress != nil {
			progress(done)
		}
	}
	return done, nil
}
