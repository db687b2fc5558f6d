package bank

import (
	"fmt"
	"strings"
	"time"
)

// ScenarioFile is the summary of a scenario file in the desktop app's
// scenarios folder, or why it cannot be loaded.
type ScenarioFile struct {
	Name     string // the file name, e.g. corporate-two-approvers.json
	Path     string
	Modified time.Time
	Size     int64
	Note     string
	Counts   Counts
	// History is set when the file asks for generated history; those
	// transactions are counted only when Count is given.
	History bool
	// Err says why the file cannot be loaded; nothing is loaded from it.
	Err error
}

// Summary describes the file in one line.
func (f ScenarioFile) Summary() string {
	if f.Err != nil {
		return "cannot be loaded: " + f.Err.Error()
	}
	c := f.Counts
	s := strings.Join([]string{
		count(c.Customers, "customer"), count(c.Accounts, "account"), count(c.CardAccounts, "card account"),
		count(c.Agreements, "agreement"), count(c.Transactions+c.CardTransactions, "transaction"),
	}, ", ")
	if f.History {
		s += " plus generated history"
	}
	return s
}

// count writes n and a noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
