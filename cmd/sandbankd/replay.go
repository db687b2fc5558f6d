package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"sandbank/bank/replay"
)

const replayUsage = `Replay a recorded session (a HAR file) against a bank, and compare each
answer with the recorded one.

Usage:
  sandbankd replay FILE.har --fresh [--scenario FILE] [flags]
  sandbankd replay FILE.har [--data FILE | --url BASE] [flags]

FILE.har is what a browser's developer tools (Network, Export HAR),
Insomnia, Postman, a proxy or Sandbank itself (Traffic, Export HAR…;
sandbankd log --har) wrote. The requests go to the bank in their order:
  --fresh             a new bank on a temporary data file, in the known
                      state, removed afterwards; --scenario FILE loads a
                      scenario into it first (a customer's case)
  --data FILE         the bank of that data file, as its operator
  --url BASE          the running bank at BASE (default http://127.0.0.1:7380),
                      as a TPP: requests an operator certificate signed are
                      signed as a TPP, and --clock recorded is not possible

Each request is signed anew, with a new Date, X-Request-ID, Digest and
Signature, over the headers the recorded signature covered; the other
headers and the body go as recorded. Each recorded certificate is replaced
by a test certificate like it from the bank's CA (--cert and --key sign
every TPP's requests instead); the operator's requests are signed by the
operator. Ids the recorded answers handed out (consentId, paymentId,
authorisationId, basketId, resourceId, transactionId, the psu-id of a
redirect, the sandbox data's ids) are learned with the new answers' ids at
the same place, and replaced in the later requests' paths, queries,
headers and bodies. An SCA is completed through automated SCA: with what
the PSU posted on the recorded SCA page, else as --national-id.

Each answer is compared with the recorded one: the status, the error code,
the tppMessages' codes, Location and Content-Type, and the JSON body field
by field, once ids are followed and what always differs (dates and times,
signatures, digests, certificates, the bank's address, the SCA page's
secret) is written as its kind. --ignore leaves out a JSON path:
  $.balances[*].referenceDate      every balance's referenceDate
  $..referenceDate                 at any depth
  GET /v1/accounts/*/balances $.balances[0].balanceAmount
                                   for these requests only (* is one segment)
--ignore-file reads one rule a line (# starts a comment).

Exit status: 0 when every entry sent matches, 1 when one differs or the
replay stopped (the bank did not answer), 2 on a usage error or a HAR that
cannot be replayed (the message names the entry), 3 when the data file is
in use. --json writes the whole report; --redact blanks names, account
numbers and national ids in it, the same value the same placeholder, for
a report that leaves the house.

Examples:
  sandbankd log --har session.har --data ci.db
  sandbankd replay session.har --fresh
  sandbankd replay case-4711.har --fresh --scenario case-4711.json --national-id 13039319955
  sandbankd replay hosted-sandbox.har --fresh --ignore-file ignore.txt --json --redact > report.json

Flags:
`

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("replay", replayUsage, stdout, stderr)
	o.fs.Lookup("json").Usage = "write the whole report as JSON instead of the table"
	fresh := o.fs.Bool("fresh", false, "replay against a new bank on a temporary data file, removed afterwards")
	scenarioFile := o.fs.String("scenario", "", "with --fresh: a scenario file to load into the new bank first")
	nationalID := o.fs.String("national-id", "", "the PSU's national id, to complete an SCA whose form posts the HAR does not hold (e.g. 13039319955)")
	clock := o.fs.String("clock", "real", "real: the sandbox clock as it is; recorded: set to each request's recorded time before it is sent, and back at the end (needs --fresh or --data)")
	var ignores repeated
	o.fs.Var(&ignores, "ignore", "a JSON path to leave out of the comparison, e.g. '$.balances[*].referenceDate' (repeatable)")
	ignoreFile := o.fs.String("ignore-file", "", "a file of ignore rules, one a line")
	redact := o.fs.Bool("redact", false, "blank names, account numbers and national ids in the report, consistently")
	o.fs.Lookup("cert").Usage = "sign every TPP's requests with this certificate (PEM) instead of test certificates like the recorded ones"
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	bf := o.bank
	bf.urlFirst = true
	switch {
	case len(pos) != 1:
		return o.usageError("give one HAR file, not %s", nArgs(len(pos)))
	case *fresh && (bf.given("data") || bf.given("url")):
		return o.usageError("--fresh replays against a new bank of its own; leave out --data and --url, or leave out --fresh")
	case *scenarioFile != "" && !*fresh:
		return o.usageError("--scenario loads a scenario into the new bank of --fresh; to replay against a bank with a scenario, load it there first (sandbankd scenario load)")
	case *clock != "real" && *clock != "recorded":
		return o.usageError("--clock is real or recorded, not %q", *clock)
	case *clock == "recorded" && !*fresh && !bf.given("data"):
		return o.usageError("--clock recorded moves the sandbox clock, which only the bank's operator may: replay with --fresh, or --data FILE of the running bank")
	case (*bf.cert == "") != (*bf.key == ""):
		return o.usageError("--cert and --key go together: the certificate and its private key")
	}
	rules, err := ignoreRules(ignores, *ignoreFile)
	if err != nil {
		return o.usageError("%v", err)
	}
	opts := replay.Options{NationalID: strings.TrimSpace(*nationalID), RecordedClock: *clock == "recorded", Ignore: rules}
	if *bf.cert != "" {
		if opts.Signer, err = loadSigner(*bf.cert, *bf.key); err != nil {
			return err
		}
		*bf.cert, *bf.key = "", "" // the bank's client signs as the operator where it may
	}
	rec, err := readHAR(pos[0])
	if err != nil {
		return err
	}
	c, cleanup, err := replayBank(ctx, o, *fresh, *scenarioFile)
	if err != nil {
		return err
	}
	defer cleanup()
	t := replay.Target{Base: c.base, Client: c.http}
	if !c.selfSigned {
		t.Operator = c.signer
	}
	if isTerminal(stderr) {
		opts.Progress = func(done, total int) { fmt.Fprintf(stderr, "\rreplaying entry %d of %d", done, total) }
	}
	rep, err := replay.Run(ctx, rec, t, opts)
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		var input *replay.InputError
		if errors.As(err, &input) {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if rep == nil {
			return err
		}
		defer fmt.Fprintf(stderr, "sandbankd: %v\n", err)
	}
	rep.File = pos[0]
	if c.app != nil {
		rep.Bank = c.where
	}
	if *redact {
		rep = rep.Redacted()
	}
	if *o.json {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteTable(stdout)
	}
	switch {
	case err != nil:
		return err
	case rep.Cancelled:
		return fmt.Errorf("the replay was interrupted after %d entries; the bank keeps what they did", len(rep.Exchanges))
	case !rep.OK():
		return fmt.Errorf("%d of %d entries differ from the recording; the report above says where", rep.Differed, rep.Entries)
	}
	return nil
}

// ignoreRules reads the --ignore rules and those of --ignore-file.
func ignoreRules(flags []string, file string) ([]replay.Rule, error) {
	var rules []replay.Rule
	for _, text := range flags {
		r, err := replay.ParseRule(text)
		if err != nil {
			return nil, fmt.Errorf("--ignore: %v", err)
		}
		rules = append(rules, r)
	}
	if file == "" {
		return rules, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("--ignore-file: %v", err)
	}
	defer func() { _ = f.Close() }()
	more, err := replay.ReadRules(f, file)
	if err != nil {
		return nil, fmt.Errorf("--ignore-file %v", err)
	}
	return append(rules, more...), nil
}

// readHAR reads the HAR file; what makes it one that cannot be replayed
// is an *replay.InputError, named with the file.
func readHAR(file string) (*replay.Recording, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w: the HAR file: %v", errUsage, err)
	}
	defer func() { _ = f.Close() }()
	rec, err := replay.ReadHAR(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return rec, nil
}

// replayBank returns a client of the bank to replay against: a new one
// on a temporary data file for --fresh (with the scenario loaded), else
// the bank the flags name. cleanup closes it and removes what --fresh
// made.
func replayBank(ctx context.Context, o *opCmd, fresh bool, scenarioFile string) (c *bankClient, cleanup func(), err error) {
	if !fresh {
		c, err := o.connect(fileOrBank)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { _ = c.Close() }, nil
	}
	dir, err := os.MkdirTemp("", "sandbank-replay-")
	if err != nil {
		return nil, nil, err
	}
	c, err = openLocal(filepath.Join(dir, "sandbank.db"), nil)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	c.where = "a fresh bank"
	cleanup = func() {
		_ = c.Close()
		_ = os.RemoveAll(dir)
	}
	if scenarioFile == "" {
		return c, cleanup, nil
	}
	f, err := os.Open(scenarioFile)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("%w: the scenario: %v", errUsage, err)
	}
	defer func() { _ = f.Close() }()
	resp, err := c.sendFile(ctx, http.MethodPut, "/v1/sandbox/scenario", f)
	if err == nil {
		_, _, err = c.read(resp, o.stderr)
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("load the scenario %s into the fresh bank: %w", scenarioFile, err)
	}
	c.where = "a fresh bank with the scenario " + scenarioFile
	return c, cleanup, nil
}
