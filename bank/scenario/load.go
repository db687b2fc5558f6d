package scenario

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"sandbank/bank"
	"sandbank/bank/apierr"
)

// loadGCPercent is the garbage collector's GOGC while a scenario loads:
// a million transactions allocate about 5 GB that lives briefly, and
// collecting at twice the live heap rather than once costs about 15% less
// CPU for some 30 MB more at the peak (docs/BENCHMARKS.md, "Scenario
// import of 1,000,000 transactions"). A GOGC the environment sets stands.
const loadGCPercent = 200

// gcDuringLoads counts the loads under way and keeps the GOGC before the
// first, to set back after the last.
var gcDuringLoads struct {
	sync.Mutex
	n      int
	before int
}

// roomyGC sets loadGCPercent for a load and returns what sets it back.
func roomyGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	g := &gcDuringLoads
	g.Lock()
	defer g.Unlock()
	if g.n++; g.n == 1 {
		g.before = debug.SetGCPercent(loadGCPercent)
	}
	return func() {
		g.Lock()
		defer g.Unlock()
		if g.n--; g.n == 0 {
			debug.SetGCPercent(g.before)
		}
	}
}

// chunkRecords is how many records an import writes in one storage
// transaction of the new data (Store.Rebuild): enough that commits cost
// little, few enough that a transaction's pages stay small. Only tests
// change it (ChunkRecords).
var chunkRecords = 5_000

// scenarioSource hands a scenario's records to a loader: feed creates the
// sandbox data through the loader's record methods, in the order of the
// scenario, and returns the rest of it (format, clock, settings and the
// parts of version 2), which the loader restores after them. A source
// that finds it cannot hand the records over in one pass returns
// errReadWhole from feed; whole then reads the scenario at once.
type scenarioSource interface {
	progress() *bank.ImportProgress
	feed(l *loader) (Scenario, error)
	whole() (Scenario, error)
}

// errReadWhole is the answer of a stream whose records come in an order
// the loader cannot take one by one (see streamSource).
var errReadWhole = errors.New("the scenario must be read whole")

// memorySource is a scenario held in memory.
type memorySource Scenario

func (m memorySource) progress() *bank.ImportProgress {
	return bank.NewImportProgress(Scenario(m).records(), 0)
}

func (m memorySource) whole() (Scenario, error) { return Scenario(m), nil }

func (m memorySource) feed(l *loader) (Scenario, error) {
	sc := Scenario(m)
	if err := l.begin(sc.Format, sc.Clock); err != nil {
		return sc, err
	}
	if err := sc.checkVersion(); err != nil {
		return sc, err
	}
	for i, c := range sc.Customers {
		if err := l.customer(i, c); err != nil {
			return sc, err
		}
	}
	for i, a := range sc.Accounts {
		acct, err := l.account(i, a)
		if err != nil {
			return sc, err
		}
		for first := 0; first < len(a.Transactions); first += chunkRecords {
			if err := l.transactions(acct, first, a.Transactions[first:min(first+chunkRecords, len(a.Transactions))]); err != nil {
				return sc, err
			}
		}
	}
	for i, c := range sc.CardAccounts {
		card, err := l.cardAccount(i, c)
		if err != nil {
			return sc, err
		}
		for first := 0; first < len(c.Transactions); first += chunkRecords {
			if err := l.cardTransactions(card, first, c.Transactions[first:min(first+chunkRecords, len(c.Transactions))]); err != nil {
				return sc, err
			}
		}
	}
	for i, a := range sc.Agreements {
		if err := l.agreement(i, a); err != nil {
			return sc, err
		}
	}
	return sc, nil
}

// load replaces the sandbox data with the scenario src holds, through
// the bank's door (Sandbox.Rebuild): it makes the data anew, a chunk of
// records per transaction, and the bank swaps them in when every record
// passed, or leaves the data as they were. With fixed, records without an
// id get the id of their position (the known state's fixed ids). While it
// runs, every other write is refused as busy, saying how far it is. A
// source that cannot hand its records over in one pass is read whole and
// loaded again.
func load(sb *bank.Sandbox, what string, src scenarioSource, fixed bool) (Counts, error) {
	defer roomyGC()()
	p := src.progress()
	var n Counts
	whole := false
	err := sb.Rebuild(what, p, func(next bank.Staging) (bank.Restored, error) {
		from := src
		if whole {
			sc, err := src.whole()
			if err != nil {
				return bank.Restored{}, err
			}
			from = memorySource(sc)
		}
		var err error
		var kept bank.Restored
		n, kept, err = rebuild(sb, next, from, fixed, p)
		if errors.Is(err, errReadWhole) && !whole {
			whole = true
			return kept, bank.ErrRebuildAgain
		}
		return kept, err
	})
	return n, err
}

// rebuild makes the data of src anew in next.
func rebuild(sb *bank.Sandbox, next bank.Staging, src scenarioSource, fixed bool, p *bank.ImportProgress) (Counts, bank.Restored, error) {
	v := apierr.Violations{Strict: sb.Strict()}
	l := &loader{sb: sb, st: next, tx: next.Tx(), v: &v, fixed: fixed, today: sb.Today(), progress: p, seen: map[string]bool{}}
	rest, err := src.feed(l)
	if err != nil {
		return Counts{}, bank.Restored{}, err
	}
	if err := rest.checkVersion(); err != nil {
		return Counts{}, bank.Restored{}, err
	}
	if err := l.restoreState(rest.Clock, rest.Settings); err != nil {
		return Counts{}, l.kept, err
	}
	n := l.n
	if l.restored {
		if err := l.restore(rest, &n); err != nil {
			return n, l.kept, err
		}
	}
	n.Warnings = v.Warnings()
	return n, l.kept, nil
}

// restoreState restores a version-2 scenario's clock and settings
// (Sandbox.RestoreState), once: before its other parts, which a stream in
// the order of an export restores as it reads them.
func (l *loader) restoreState(clock *bank.ScenarioClock, settings *bank.Settings) error {
	if l.stateDone {
		return nil
	}
	l.stateDone = true
	var err error
	l.kept, err = l.sb.RestoreState(l.tx, clock, settings)
	return err
}

// loader creates a scenario's records in the new data of an import, a
// chunk per transaction; v gathers the findings and oddities of them all.
// restored is set for a version-2 scenario, whose records the bank made
// (see restore).
type loader struct {
	sb       *bank.Sandbox
	st       bank.Staging
	tx       bank.Tx
	v        *apierr.Violations
	fixed    bool
	today    bank.Date
	restored bool
	progress *bank.ImportProgress
	n        Counts
	// written counts the records written since the last commit.
	written int
	// planned is set once a history was generated with today.
	planned bool
	// stateDone is set once the clock and settings were restored, with
	// kept what the bank must know of them (restoreState).
	stateDone bool
	kept      bank.Restored
	// seen holds the keys of the restored records that must be unique
	// within their part (usage counters, batch runs, TPP contacts), and
	// basketRefs the restored payments that name a basket (restore).
	seen       map[string]bool
	basketRefs []basketRef
	// chunk and ids are the buffers a chunk of transactions is handed to
	// the bank in, used again for the next.
	chunk []bank.NewTransaction
	ids   []string
}

// lastDay is the latest date there is.
var lastDay = bank.Date{Year: 9999, Month: time.December, Day: 31}

// begin checks the scenario's format and takes the day its clock sets,
// by which generated history is dated.
func (l *loader) begin(format string, clock *bank.ScenarioClock) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	l.restored = format != FormatV1
	return l.setClock(clock)
}

// setClock takes the day a scenario's clock sets. A stream that names its
// clock after an account with generated history must be read whole.
func (l *loader) setClock(clock *bank.ScenarioClock) error {
	if clock == nil || clock.Now.IsZero() {
		return nil
	}
	if l.planned && bank.DateOf(clock.Now) != l.today {
		return errReadWhole
	}
	l.today = bank.DateOf(clock.Now)
	return nil
}

// wrote counts n records written and commits the transaction once a chunk
// is full.
func (l *loader) wrote(n int) error {
	l.progress.Loaded(n)
	l.written += n
	if l.written < chunkRecords {
		return nil
	}
	l.written = 0
	if err := l.st.Commit(); err != nil {
		return err
	}
	l.tx = l.st.Tx()
	return nil
}

// latest is the latest date a transaction may have: today, or for a
// version-2 scenario any date, since the clock may have been moved back
// after the bank made a record (and a payment's pending item is dated on
// its execution date).
func (l *loader) latest() bank.Date {
	if l.restored {
		return lastDay
	}
	return l.today
}

// id returns the id a record gets: its own, the fixed id of its position,
// or "" for a new one.
func (l *loader) id(kind bank.Kind, parent uint64, own string, pos int) string {
	if own == "" && l.fixed {
		return bank.FormatID(kind, parent, uint64(pos+1))
	}
	return own
}

// customer creates customers[i].
func (l *loader) customer(i int, c Customer) error {
	path := fmt.Sprintf("customers[%d]", i)
	if _, err := bank.CreateCustomerIn(l.tx, path, l.id(bank.KindCustomer, 0, c.ID, i), c.NewCustomer); err != nil {
		return err
	}
	l.n.Customers++
	return l.wrote(1)
}

// scenarioAccount is an account being loaded: its transactions come after
// it, in chunks, after its generated history.
type scenarioAccount struct {
	bank.Account
	path    string
	history int
}

// account creates accounts[i] with its generated history; its listed
// transactions follow through transactions.
func (l *loader) account(i int, a Account) (scenarioAccount, error) {
	path := fmt.Sprintf("accounts[%d]", i)
	acct, err := bank.CreateAccountIn(l.tx, l.v, path, l.id(bank.KindAccount, 0, a.ID, i), a.NewAccount)
	if err != nil {
		return scenarioAccount{}, err
	}
	l.n.Accounts++
	out := scenarioAccount{Account: acct, path: path}
	if err := l.wrote(1); err != nil {
		return out, err
	}
	if a.History == nil {
		return out, nil
	}
	var v apierr.Violations
	h := bank.CheckHistory(&v, apierr.JoinPath(path, "history"), *a.History, false)
	if err := v.Err(); err != nil {
		return out, err
	}
	l.planned = true
	history := bank.AccountHistory(h, acct, l.today)
	out.history = history.Len()
	for first := 0; first < out.history; first += chunkRecords {
		if err := l.put(out, first, history.Next(chunkRecords), nil); err != nil {
			return out, err
		}
	}
	return out, nil
}

// transactions creates listed transactions of an account, from the
// first'th of its list.
func (l *loader) transactions(a scenarioAccount, first int, list []Transaction) error {
	l.chunk, l.ids = l.chunk[:0], l.ids[:0]
	for _, t := range list {
		l.chunk, l.ids = append(l.chunk, t.NewTransaction), append(l.ids, t.ID)
	}
	return l.put(a, a.history+first, l.chunk, l.ids)
}

// put stores transactions at position first of an account's list (its
// history and its listed transactions), ids their own ids (nil for none),
// checking that no id comes twice, also across chunks.
func (l *loader) put(a scenarioAccount, first int, txs []bank.NewTransaction, own []string) error {
	seq, _ := bank.SeqOf(bank.KindAccount, a.ID)
	path := apierr.JoinPath(a.path, "transactions")
	ids := make([]string, len(txs))
	for i := range ids {
		if own != nil {
			ids[i] = own[i]
		}
		ids[i] = l.id(bank.KindTransaction, seq, ids[i], first+i)
	}
	if first > 0 { // an id of an earlier chunk (AddTransactionsIn finds those within one)
		known, err := l.tx.KnownTransactions(a.ID, ids)
		if err != nil {
			return err
		}
		for i, k := range known {
			if k {
				l.v.Format(apierr.JoinPath(path, fmt.Sprintf("[%d].id", first+i)), "two transactions have the id %s", ids[i])
			}
		}
	}
	if _, err := bank.AddTransactionsIn(l.tx, l.v, a.Account, path, first, txs, ids, l.latest(), l.restored); err != nil {
		return err
	}
	l.n.Transactions += len(txs)
	return l.wrote(len(txs))
}

// scenarioCard is a card account being loaded.
type scenarioCard struct {
	bank.CardAccount
	path    string
	history int
}

// cardAccount creates cardAccounts[i] with its generated history; its
// listed transactions follow through cardTransactions.
func (l *loader) cardAccount(i int, c CardAccount) (scenarioCard, error) {
	path := fmt.Sprintf("cardAccounts[%d]", i)
	card, err := bank.CreateCardAccountIn(l.tx, l.v, path, l.id(bank.KindCardAccount, 0, c.ID, i), c.NewCardAccount)
	if err != nil {
		return scenarioCard{}, err
	}
	l.n.CardAccounts++
	out := scenarioCard{CardAccount: card, path: path}
	if err := l.wrote(1); err != nil {
		return out, err
	}
	if c.History == nil {
		return out, nil
	}
	var v apierr.Violations
	h := bank.CheckHistory(&v, apierr.JoinPath(path, "history"), *c.History, true)
	if err := v.Err(); err != nil {
		return out, err
	}
	l.planned = true
	history := bank.CardHistory(h, card, l.today)
	out.history = history.Len()
	for first := 0; first < out.history; first += chunkRecords {
		if err := l.cardTransactionsAt(out, first, history.Next(chunkRecords), false); err != nil {
			return out, err
		}
	}
	return out, nil
}

// cardTransactions creates listed transactions of a card account, from
// the first'th of its list.
func (l *loader) cardTransactions(c scenarioCard, first int, list []bank.NewCardTransaction) error {
	return l.cardTransactionsAt(c, c.history+first, list, l.restored)
}

// cardTransactionsAt stores card transactions at position first of the
// card account's list (its history and its listed transactions). Unless
// restored, their pending ones move the card account's expected balance
// (bank.AddCardTransactionsIn): a generated history's always, a listed
// one's unless the scenario is a version-2 one, whose balances hold them.
func (l *loader) cardTransactionsAt(c scenarioCard, first int, txs []bank.NewCardTransaction, restored bool) error {
	if _, err := bank.AddCardTransactionsIn(l.tx, l.v, c.CardAccount, apierr.JoinPath(c.path, "transactions"), first, txs, l.latest(), restored); err != nil {
		return err
	}
	l.n.CardTransactions += len(txs)
	return l.wrote(len(txs))
}

// agreement creates agreements[i] with its engagements.
func (l *loader) agreement(i int, a Agreement) error {
	path := fmt.Sprintf("agreements[%d]", i)
	id := l.id(bank.KindAgreement, 0, a.ID, i)
	in := bank.NewAgreement{Owner: a.Owner, Name: a.Name}
	seq, _ := bank.SeqOf(bank.KindAgreement, id) // 0 for a new agreement, whose engagements are new too
	var engagementIDs []string
	for j, e := range a.Engagements {
		in.Engagements = append(in.Engagements, e.NewEngagement)
		engagementIDs = append(engagementIDs, l.id(bank.KindEngagement, seq, e.ID, j))
	}
	if _, err := bank.CreateAgreementIn(l.tx, l.v, path, id, in, engagementIDs); err != nil {
		return err
	}
	l.n.Agreements++
	l.n.Engagements += len(a.Engagements)
	return l.wrote(1)
}
