package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

const scenarioUsage = `Save all sandbox data to a scenario file, or load one
(docs/SANDBOX-API.md 2.13).

Usage:
  sandbankd scenario save FILE [--note TEXT]
  sandbankd scenario load FILE [--json]

save writes every customer, account, card account and agreement, with
their transactions and ids, as one JSON document (FILE - writes to
standard output). load replaces all sandbox data with the file's, all or
nothing: a refused scenario changes nothing, and the bank's findings name
the record, e.g. accounts[3].iban. A scenario may be up to 256 MiB; the
file is streamed, not held in memory by this command.

Examples:
  sandbankd scenario save case-4711.json --note "support case 4711"
  sandbankd scenario load case-4711.json

Flags:
`

func runScenario(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o := newOpCmd("scenario", scenarioUsage, stdout, stderr)
	note := o.fs.String("note", "", "save: a note to write in the scenario's note field")
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || (pos[0] != "save" && pos[0] != "load") {
		return o.usageError("give save FILE or load FILE")
	}
	if len(pos) != 2 {
		return o.usageErrorOf(pos[0], "scenario %s takes one FILE (- for standard %s), not %s", pos[0], map[string]string{"save": "output", "load": "input"}[pos[0]], nArgs(len(pos)-1))
	}
	if strings.TrimSpace(pos[1]) == "" {
		return o.usageErrorOf(pos[0], "the FILE is empty; give a file name, or - for standard %s", map[string]string{"save": "output", "load": "input"}[pos[0]])
	}
	if pos[0] == "save" {
		return scenarioSave(ctx, o, pos[1], *note)
	}
	if o.bank.given("note") {
		return o.usageError("--note is for save; load keeps no note")
	}
	return scenarioLoad(ctx, o, pos[1], stdin)
}

// scenarioSave writes the bank's scenario export to file.
func scenarioSave(ctx context.Context, o *opCmd, file, note string) error {
	c, err := o.connect(fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	path := "/v1/sandbox/scenario"
	if note != "" {
		path += "?note=" + url.QueryEscape(note)
	}
	n, err := c.download(ctx, o, path, file)
	if err != nil || file == "-" {
		return err
	}
	fmt.Fprintf(o.stdout, "Saved the scenario of %s to %s (%d bytes)\n", c.where, file, n)
	return nil
}

// scenarioLoad sends the scenario in file (- reads standard input) to
// the bank, which replaces all sandbox data with it.
func scenarioLoad(ctx context.Context, o *opCmd, file string, stdin io.Reader) error {
	var body []byte
	var f *os.File
	if file == "-" {
		var err error
		if body, err = io.ReadAll(stdin); err != nil {
			return fmt.Errorf("read the scenario from standard input: %w", err)
		}
	} else {
		var err error
		if f, err = os.Open(file); err != nil {
			return fmt.Errorf("open the scenario: %w", err)
		}
		defer func() { _ = f.Close() }()
	}
	c, err := o.connect(fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	var resp *http.Response
	if f != nil {
		resp, err = c.sendFile(ctx, http.MethodPut, "/v1/sandbox/scenario", f)
	} else {
		resp, err = c.send(ctx, http.MethodPut, "/v1/sandbox/scenario", body)
	}
	if err != nil {
		return err
	}
	answer, _, err := c.read(resp, o.stderr)
	if err != nil {
		return err
	}
	rows, done, err := o.jsonOrRows(answer)
	if done || err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "Loaded %s into %s:\n", file, c.where)
	return printRows(o.stdout, [2]string{"RECORDS", "COUNT"}, rows)
}

// download gets path from the bank and writes the answer's body as it
// comes to file, or to standard output for "-"; an error answer goes to
// standard error. It returns the bytes written to a file.
func (c *bankClient) download(ctx context.Context, o *opCmd, path, file string) (int64, error) {
	resp, err := c.send(ctx, http.MethodGet, path, nil)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode/100 != 2 {
		_, _, err := c.read(resp, o.stderr)
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	if file == "-" {
		n, err := io.Copy(o.stdout, resp.Body)
		return n, err
	}
	return writeFileFrom(file, resp.Body)
}

// writeFileFrom writes what r holds to file through a temporary file
// beside it, so that a failure leaves no half file, and returns its size.
func writeFileFrom(file string, r io.Reader) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", file, err)
	}
	n, err := io.Copy(tmp, r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return n, fmt.Errorf("write %s: %w", file, err)
	}
	return n, nil
}
