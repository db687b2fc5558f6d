package ui

import (
	"crypto/rsa"
	"crypto/x509"

	"sandbank/bank"
	"sandbank/bank/pki"
	"sandbank/bank/reqlog"
	"sandbank/bank/scenario"
)

// Host is what the screens need from the process that runs the bank: the
// bank's doors, its request log and listeners, its folders and scenario
// files, and its local CA. The desktop app's composition root is one.
type Host interface {
	// Sandbox is the bank's door to the test data.
	Sandbox() *bank.Sandbox
	// Ops is the bank's door for the operator, and its change events.
	Ops() *bank.Ops
	// RequestLog keeps the recent requests for the traffic screen.
	RequestLog() *reqlog.Log
	// Version is Sandbank's version, for the About dialog and as the
	// creator's in a HAR export.
	Version() string

	// Addrs returns the HTTP and HTTPS listen addresses of the next Start.
	Addrs() (addr, tlsAddr string)
	// SetAddrs changes the listen addresses of the next Start; an empty
	// one turns that listener off.
	SetAddrs(addr, tlsAddr string)
	// Start serves on the listen addresses; an address that cannot be
	// bound is in the error, and the other one serves.
	Start() error
	// Stop closes the listeners.
	Stop() error
	// URLs returns the base URLs served now, none when stopped.
	URLs() []string

	// DataDir is the folder of the data file.
	DataDir() string
	// TrustDir is the watched folder of extra trusted CA files.
	TrustDir() string
	// ScenarioDir is the watched folder of scenario files.
	ScenarioDir() string

	// Scenarios returns the scenario files of the folder as last read.
	Scenarios() []scenario.File
	// SubscribeScenarios calls fn with the list whenever the folder
	// changes, until cancel; fn must not block.
	SubscribeScenarios(fn func([]scenario.File)) (cancel func())
	// LoadScenario replaces the sandbox data with a scenario file.
	LoadScenario(name string) (scenario.Counts, error)
	// CheckScenarioName reports whether name can be a new scenario file.
	CheckScenarioName(name string) error
	// SaveScenario writes the sandbox data as a new scenario file and
	// returns its path.
	SaveScenario(name, note string) (path string, err error)

	// CACertPEM returns the local CA's certificate, PEM encoded.
	CACertPEM() []byte
	// OperatorCert issues an operator certificate of the local CA: the
	// window is the bank's operator, also when it replays a HAR.
	OperatorCert() (*x509.Certificate, *rsa.PrivateKey, error)
	// IssueTPP issues a TPP test certificate from the local CA and writes
	// it with its key into dir.
	IssueTPP(req pki.TPPRequest, operator bool, dir string) (cert *x509.Certificate, certPath, keyPath string, err error)
}
