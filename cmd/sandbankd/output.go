package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"sandbank/bank"
)

// opCmd is one command of the bank's operator: its flags (the bank flags
// and --json), usage text, standard output and standard error.
type opCmd struct {
	fs             *flag.FlagSet
	bank           *bankFlags
	json           *bool
	usage          string
	stdout, stderr io.Writer
}

// newOpCmd makes the flag set of the command name, whose usage text is
// usage.
func newOpCmd(name, usage string, stdout, stderr io.Writer) *opCmd {
	fs := flag.NewFlagSet("sandbankd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return &opCmd{
		fs: fs, bank: addBankFlags(fs), usage: usage, stdout: stdout, stderr: stderr,
		json: fs.Bool("json", false, "print the bank's JSON answer as it came, indented, instead of a table"),
	}
}

// parse parses args, flags anywhere among them, and returns the others.
func (o *opCmd) parse(args []string) ([]string, error) {
	pos, err := parseInterspersed(o.fs, args)
	if err != nil {
		return nil, usageErr(err)
	}
	return pos, nil
}

// usageError is a mistake in the command line, followed by the command's
// usage lines and where to read more.
func (o *opCmd) usageError(format string, args ...any) error {
	return o.usageErrorOf("", format, args...)
}

// usageErrorOf is a mistake in the command line of the command's verb
// (show, force...), followed by the verb's usage lines, or all of them
// when verb is empty, and where to read more.
func (o *opCmd) usageErrorOf(verb, format string, args ...any) error {
	lines := usageLines(o.usage, strings.TrimSpace(o.fs.Name()+" "+verb))
	if len(lines) == 0 {
		lines = usageLines(o.usage, o.fs.Name())
	}
	return fmt.Errorf("%w: %s\n%s\n  see %s -h", errUsage, fmt.Sprintf(format, args...), strings.Join(lines, "\n"), o.fs.Name())
}

// usageLines returns the lines of the Usage section of a usage text that
// start with prefix (e.g. "sandbankd payments show"), as they are written.
func usageLines(usage, prefix string) []string {
	_, section, _ := strings.Cut(usage, "Usage:\n")
	section, _, _ = strings.Cut(section, "\n\n")
	var lines []string
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok && (rest == "" || rest[0] == ' ') {
			lines = append(lines, line)
		}
	}
	return lines
}

// checkArg refuses an argument of the command's verb that cannot be an
// id: an empty one, one with a space, a control character or a slash, and
// . or .., which would change the path of the request. what names the
// argument ("the payment ID"), names what to give instead ("a payment's
// paymentId, as sandbankd payments lists it").
func (o *opCmd) checkArg(verb, what, arg, names string) error {
	switch {
	case arg == "":
		return o.usageErrorOf(verb, "%s is empty; give %s", what, names)
	case arg == "." || arg == "..":
		return o.usageErrorOf(verb, "%s %q is not an id; give %s", what, arg, names)
	}
	if i := strings.IndexFunc(arg, func(r rune) bool { return r == '/' || r == '\\' || unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(arg[i:])
		return o.usageErrorOf(verb, "%s %q holds %q, which no id holds; give %s", what, arg, r, names)
	}
	return nil
}

// nArgs writes a count of arguments: "1 argument", "2 arguments".
func nArgs(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}

// connect returns a client of the bank the flags name.
func (o *opCmd) connect(r reach) (*bankClient, error) { return o.bank.connect(o.stderr, r) }

// once sends one request to the bank the flags name (the data file or the
// bank that holds it) and closes the client: what most commands do. It
// returns the 2xx answer as it came, decoded into out too when out is not
// nil, and its headers; another answer is an *apiError.
func (o *opCmd) once(ctx context.Context, method, path string, body []byte, out any) ([]byte, http.Header, error) {
	c, err := o.connect(fileOrBank)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = c.Close() }()
	if out == nil {
		return c.call(ctx, o.stderr, method, path, body)
	}
	return c.callJSON(ctx, o.stderr, method, path, body, out)
}

// jsonOrRows prints a JSON object answer as it came when --json is given
// (done), and otherwise returns it as NAME VALUE rows, its tppMessages
// left out: the bank's warnings went to standard error already.
func (o *opCmd) jsonOrRows(answer []byte) (rows [][2]string, done bool, err error) {
	if *o.json {
		return nil, true, printJSON(o.stdout, answer)
	}
	rows, err = flatRows(answer, "tppMessages")
	return rows, false, err
}

// printJSON writes an answer of the bank as it came, indented.
func printJSON(w io.Writer, body []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		_, err = w.Write(body)
		return err
	}
	_, err := w.Write(append(bytes.TrimRight(b.Bytes(), "\n"), '\n'))
	return err
}

// table writes aligned columns under a header row.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, headers ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(headers...)
	return t
}

// row adds a row; a tab or line break in a cell becomes a space.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// flatRows flattens a JSON object to NAME VALUE rows in its own order: a
// member of an inner object as NAME.MEMBER, a list of values comma
// separated, text without quotes. Members named in skip are left out.
func flatRows(doc []byte, skip ...string) ([][2]string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var rows [][2]string
	var walk func(name string) error
	walk = func(name string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := key.(string)
				if name == "" && slices.Contains(skip, k) {
					var ignored json.RawMessage
					if err := dec.Decode(&ignored); err != nil {
						return err
					}
					continue
				}
				if name != "" {
					k = name + "." + k
				}
				if err := walk(k); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			var items []string
			for dec.More() {
				var v any
				if err := dec.Decode(&v); err != nil {
					return err
				}
				items = append(items, valueText(v))
			}
			rows = append(rows, [2]string{name, strings.Join(items, ",")})
			_, err = dec.Token()
			return err
		}
		rows = append(rows, [2]string{name, valueText(tok)})
		return nil
	}
	if err := walk(""); err != nil {
		return nil, fmt.Errorf("read the bank's answer: %w", err)
	}
	return rows, nil
}

// valueText writes a decoded JSON value: text as it is, null as null, an
// object or a list as compact JSON.
func valueText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// printRows writes NAME VALUE rows as a table.
func printRows(w io.Writer, headers [2]string, rows [][2]string) error {
	t := newTable(w, headers[0], headers[1])
	for _, r := range rows {
		t.row(r[0], r[1])
	}
	return t.flush()
}

// timeText writes a moment in the bank's time zone (Europe/Oslo), to the
// second, with the zone's abbreviation (CET or CEST), as the desktop
// window writes it; the zero time is empty. JSON output keeps RFC 3339.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(bank.Oslo).Format("2006-01-02 15:04:05 MST")
}

// offsetText writes the sandbox clock's offset from the real clock as
// days, hours, minutes and seconds, e.g. "+3d 2h".
func offsetText(seconds int64) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	var parts []string
	for _, u := range []struct {
		n    int64
		unit string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}} {
		if seconds >= u.n {
			parts = append(parts, fmt.Sprintf("%d%s", seconds/u.n, u.unit))
			seconds %= u.n
		}
	}
	if len(parts) == 0 {
		return "0s"
	}
	return sign + strings.Join(parts, " ")
}
