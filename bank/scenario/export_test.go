package scenario

import (
	"testing"

	"sandbank/bank"
)

// The whole scenario in memory, for tests: the oracle Write's
// bytes are compared with, and a way in for scenarios built in Go. The
// bank itself reads and writes scenarios as streams (Import, Write).

// ImportScenario replaces all sandbox data with a scenario, at once: when
// any record breaks a rule, nothing changes and the error names the record
// by its path, e.g. accounts[2].iban. A version-2 scenario also restores
// the bank's other records, its settings and its clock (see restore).
func ImportScenario(s *bank.Sandbox, sc Scenario) (Counts, error) {
	return load(s, "import scenario", memorySource(sc), false)
}

// ExportScenario returns the whole sandbox as a scenario that
// ImportScenario turns back into the same records with the same ids: the
// sandbox data and, in version 2, the bank's other records, its settings
// and its clock. It waits for a batch run that is under way, so that the
// scenario holds no half of one. Write writes the same as JSON
// without holding the transactions in memory.
func ExportScenario(s *bank.Sandbox, note string) (Scenario, error) {
	var sc Scenario
	err := s.Export(func(tx bank.Tx, clock bank.ScenarioClock, settings bank.Settings) error {
		var err error
		if sc, err = exportHead(tx, note, clock, settings); err != nil {
			return err
		}
		for i := range sc.Accounts {
			a := &sc.Accounts[i]
			err := eachTransaction(tx, a.ID, func(t bank.Transaction) error {
				a.Transactions = append(a.Transactions, Transaction{ID: t.ID, NewTransaction: exportTransaction(t)})
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return sc, err
}

// TextLimits are the most characters of the text fields the streamed
// import refuses longer ones of as it reads them (textLimits), by the
// struct that declares each and its JSON name: the test that holds them
// to the fields' checks reads them.
var TextLimits = textLimits

// LoadGCPercent is the GOGC a load runs with (loadGCPercent): its garbage
// may take that much more of the heap than at the default.
const LoadGCPercent = loadGCPercent

// HoldParts sets how many bytes of the parts of version 2 in another
// order than an export's the bank holds (maxHeldParts) until the test
// ends, so that a test passes it with a small document.
func HoldParts(t testing.TB, n int64) {
	before := heldParts
	heldParts = n
	t.Cleanup(func() { heldParts = before })
}

// ChunkRecords sets how many records an import writes in one storage
// transaction (chunkRecords) until the test ends, so that a test spans
// chunks with a small document.
func ChunkRecords(t testing.TB, n int) {
	before := chunkRecords
	chunkRecords = n
	t.Cleanup(func() { chunkRecords = before })
}

// WithoutLanes runs f with every list of transactions read by the decoder
// alone, as before the lane (quickList).
func WithoutLanes(f func()) {
	lanes = false
	defer func() { lanes = true }()
	f()
}
