package bank

// EventKind tells what kind of records changed.
type EventKind string

// The kinds of changes the bank announces.
const (
	EventCustomers        EventKind = "customers"        // customers (and private agreements)
	EventAgreements       EventKind = "agreements"       // agreements and engagements
	EventAccounts         EventKind = "accounts"         // accounts and their balances
	EventTransactions     EventKind = "transactions"     // an account's transactions; ID is the account
	EventCardAccounts     EventKind = "cardAccounts"     // card accounts and their balances
	EventCardTransactions EventKind = "cardTransactions" // a card account's transactions; ID is the card account
	EventSettings         EventKind = "settings"         // the bank's settings
	EventConsents         EventKind = "consents"         // authorisations, grants and SCA sessions
	EventPayments         EventKind = "payments"         // payments and signing baskets
	EventBatchRuns        EventKind = "batchRuns"        // a batch run finished
	EventReset            EventKind = "reset"            // all sandbox data replaced (initialize, scenario import)
)

// Event announces a committed change. ID names the record when one record
// changed, else it is empty.
type Event struct {
	Kind EventKind
	ID   string
}

// Subscribe calls fn with every event from now on, until cancel is called.
// fn runs on the goroutine that made the change and must not block; a GUI
// hands the event to its own thread (fyne.Do).
func (s *Ops) Subscribe(fn func(Event)) (cancel func()) {
	return s.events.Subscribe(fn)
}

func (s *core) publish(events ...Event) {
	s.events.Publish(events...)
}

// change runs fn in a write transaction and, when it commits, announces
// events; it returns what fn made.
func change[T any](s *core, what string, fn func(Tx) (T, error), events ...Event) (T, error) {
	var out T
	err := s.write(what, func(tx Tx) error {
		var err error
		out, err = fn(tx)
		return err
	}, events...)
	return out, err
}

// write runs fn in a write transaction and, when it commits, announces
// events.
func (s *core) write(what string, fn func(Tx) error, events ...Event) error {
	if err := s.update(what, fn); err != nil {
		return err
	}
	s.publish(events...)
	return nil
}
