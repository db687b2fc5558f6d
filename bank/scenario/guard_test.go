package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/apierr"
)

// guarded reads doc through a guard of a Scenario, in reads of chunk
// bytes (0: as they come), and returns what it passed and its refusal.
func guarded(doc []byte, chunk int) ([]byte, *apierr.Error, error) {
	var r io.Reader = bytes.NewReader(doc)
	if chunk > 0 {
		r = &chunked{r: r, n: chunk}
	}
	passed, err := io.ReadAll(newGuard(r, reflect.TypeFor[Scenario]()))
	var read readError
	if errors.As(err, &read) {
		e, _ := apierr.AsError(read.err)
		return passed, e, nil
	}
	return passed, nil, err
}

// chunked reads at most n bytes at a time.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func TestGuard_PassesScenariosUnchanged(t *testing.T) {
	docs := map[string][]byte{}
	entries, err := fs.ReadDir(assets.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if docs[e.Name()], err = fs.ReadFile(assets.Scenarios, "scenarios/"+e.Name()); err != nil {
			t.Fatal(err)
		}
	}
	docs["known state"] = assets.KnownState
	docs["at the limits"] = []byte(`{"format":"sandbank-scenario/1","Note":"` + strings.Repeat("n", MaxNote) + `",
		"customers":[{"customerNumber":"01017012345","type":"private","name":"` + strings.Repeat(`\u00e5`, 70) + `","id":"` + strings.Repeat("i", maxText) + `"},
		 {"name":"` + strings.Repeat(`\ud83d\ude00`, 70) + `","x":"` + strings.Repeat("u", maxUnknown-16) + `"}],
		"settings":{"a":"` + strings.Repeat("s", maxText) + `"},
		"accounts":[{"transactions":[{},{"creditorName":"` + strings.Repeat("ø", 70) + `"}]}]} ` + strings.Repeat(" ", 1<<20))
	for name, doc := range docs {
		for _, chunk := range []int{0, 1, 7, 4096} {
			passed, refused, err := guarded(doc, chunk)
			if err != nil || refused != nil || !bytes.Equal(passed, doc) {
				t.Errorf("%s in reads of %d: passed %d of %d bytes, refused %v, %v", name, chunk, len(passed), len(doc), refused, err)
			}
		}
	}
}

func TestGuard_RefusesWhatIsTooLong(t *testing.T) {
	huge := func(s string, n int) string { return strings.Repeat(s, n) }
	const head = `{"format":"sandbank-scenario/1",`
	for _, c := range []struct {
		name, doc, code, path, text string
	}{
		{"a note", head + `"note":"` + huge("x", MaxNote+1) + `"}`,
			apierr.CodeFormatError, "note", "must be at most 65536 bytes (64 KiB), not 65537; keep a longer text in a file beside the scenario"},
		{"a note of escapes", head + `"NOTE":"` + huge(`\u00e5`, MaxNote/2+1) + `"}`,
			apierr.CodeFormatError, "note", "must be at most 65536 bytes (64 KiB), not 65538"},
		{"a name", head + `"customers":[{},{"name":"` + huge("a", 71) + `"}]}`,
			apierr.CodeFormatError, "customers[1].name", "must be at most 70 characters, not 71"},
		{"a name of escapes", head + `"customers":[{"name":"` + huge(`\u00e5`, 71) + `"}]}`,
			apierr.CodeFormatError, "customers[0].name", "must be at most 70 characters, not 71"},
		{"a name of surrogate pairs", head + `"customers":[{"name":"` + huge(`\ud83d\ude00`, 71) + `"}]}`,
			apierr.CodeFormatError, "customers[0].name", "must be at most 70 characters, not 71"},
		{"a name of 200 MB", head + `"customers":[{"name":"` + huge("ab", 1<<20) + `"}]}`,
			apierr.CodeFormatError, "customers[0].name", "must be at most 70 characters, not 2097152"},
		{"a transaction's creditor", head + `"accounts":[{"id":"x","transactions":[{},{},{"creditorName":"` + huge("æ", 71) + `"}]}]}`,
			apierr.CodeFormatError, "accounts[0].transactions[2].creditorName", "must be at most 70 characters, not 71"},
		{"a card acceptor's city", head + `"cardAccounts":[{"transactions":[{"cardAcceptorAddress":{"city":"` + huge("c", 36) + `"}}]}]}`,
			apierr.CodeFormatError, "cardAccounts[0].transactions[0].cardAcceptorAddress.city", "must be at most 35 characters, not 36"},
		{"an authorisation's TPP name", head + `"authorisations":[{"tppName":"` + huge("t", 201) + `"}]}`,
			apierr.CodeFormatError, "authorisations[0].tppName", "must be at most 200 characters, not 201"},
		{"an id", head + `"customers":[{"id":"` + huge("i", maxText+1) + `"}]}`,
			apierr.CodeFormatError, "customers[0].id", "must be at most 1048576 bytes (1 MiB), not 1048577"},
		{"a string in the settings", head + `"settings":{"trustMode":"` + huge("s", maxText+1) + `"}}`,
			apierr.CodeFormatError, "settings.trustMode", "must be at most 1048576 bytes (1 MiB), not 1048577"},
		{"a string never ended", head + `"note":"` + huge("x", MaxNote+10),
			apierr.CodeFormatError, "note", "not 65546"},
		{"an unknown field's text", head + `"customers":[{"photo":"` + huge("p", maxUnknown) + `"}]}`,
			apierr.CodeBadRequest, "customers[0].photo", bank.UnusedField + "; its value is over 64 KiB"},
		{"an unknown field's array", head + `"attachments":[` + huge("0,", maxUnknown) + `0]}`,
			apierr.CodeBadRequest, "attachments", "its value is over 64 KiB"},
		{"an unknown field in an unknown field", head + `"x":{"y":["` + huge("y", maxUnknown) + `"]}}`,
			apierr.CodeBadRequest, "x", "its value is over 64 KiB"},
		{"a key", head + `"customers":[{"` + huge("k", maxKey+1) + `":1}]}`,
			apierr.CodeBadRequest, "customers[0]", "holds a key over 64 KiB long"},
		{"a number", head + `"customers":[{"name":` + huge("1", maxText+1) + `}]}`,
			apierr.CodeBadRequest, "customers[0].name", "holds a number (or a word) over 1 MiB long"},
	} {
		for _, chunk := range []int{0, 3, 4096} {
			passed, refused, err := guarded([]byte(c.doc), chunk)
			if err != nil || refused == nil || refused.Code != c.code || refused.Messages[0].Path != c.path || !strings.Contains(refused.Messages[0].Text, c.text) {
				t.Errorf("%s in reads of %d: refused %+v, %v; want %s at %s: %s", c.name, chunk, refused, err, c.code, c.path, c.text)
				continue
			}
			// The guard passed on no more of the value than its limit
			// allows: a decoder never held it whole.
			if len(passed) > 12*maxText+len(head)+64 || (len(c.doc) > 2<<20 && len(passed) > len(c.doc)/2) {
				t.Errorf("%s in reads of %d: passed %d bytes of %d", c.name, chunk, len(passed), len(c.doc))
			}
		}
	}
}

func TestGuard_BoundsWhiteSpaceAndRecords(t *testing.T) {
	spaces := io.MultiReader(strings.NewReader(`{"format":"sandbank-scenario/1",`), &repeated{b: ' ', n: maxSpace + 1}, strings.NewReader(`"note":""}`))
	_, err := io.Copy(io.Discard, newGuard(spaces, reflect.TypeFor[Scenario]()))
	if e, ok := guardError(err); !ok || e.Code != apierr.CodeBadRequest || !strings.Contains(e.Message, "white space in a row") {
		t.Errorf("%d MiB of white space: %v", maxSpace>>20, err)
	}

	// A record held to its bytes is refused where it would pass them.
	g := newGuard(iotest.HalfReader(strings.NewReader(`{"format":"sandbank-scenario/1","customers":[{"name":"Kari Nordmann"}]}`)), reflect.TypeFor[Scenario]())
	g.hold(40, "customers[0]", "record")
	passed, err := io.ReadAll(g)
	if e, ok := guardError(err); !ok || len(passed) != 40 || e.Messages[0].Path != "customers[0]" || !strings.Contains(e.Message, "more than a record of a scenario may have") {
		t.Errorf("held at 40 bytes: passed %d, %v", len(passed), err)
	}
	g = newGuard(strings.NewReader(`{"format":"sandbank-scenario/1","customers":[{"name":"Kari Nordmann"}]}`), reflect.TypeFor[Scenario]())
	g.hold(40, "customers[0]", "record")
	g.release()
	if _, err := io.ReadAll(g); err != nil {
		t.Errorf("released: %v", err)
	}

	// Deeper than the decoder goes, the guard lets the decoder refuse it.
	deep := strings.Repeat(`{"a":[`, maxDepth) + `"` + strings.Repeat("x", 2*maxUnknown) + `"`
	if passed, refused, err := guarded([]byte(deep), 0); err != nil || refused != nil || len(passed) != len(deep) {
		t.Errorf("nested %d deep: passed %d of %d, %v %v", maxDepth, len(passed), len(deep), refused, err)
	}
}

// repeated reads n bytes b.
type repeated struct {
	b byte
	n int
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// TestGuard_CountsAsTheDecoderDecodes: the characters and bytes the guard
// counts in a string are those of the string encoding/json decodes, with
// escapes, surrogate pairs and lone surrogates.
func TestGuard_CountsAsTheDecoderDecodes(t *testing.T) {
	pieces := []string{"a", "ø", "€", "😀", `\n`, `\"`, `\\`, `\/`, `\u0041`, `\u00e5`, `\u20ac`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\uD83D`, `\uDE00`, `\ud800\ud800`, `\u0000`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var text strings.Builder
		for range rng.IntN(12) {
			text.WriteString(pieces[rng.IntN(len(pieces))])
		}
		doc := `{"name":"` + text.String() + `"}`
		var want struct{ Name string }
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		g := newGuard(strings.NewReader(doc), reflect.TypeFor[bank.NewCustomer]())
		if _, err := io.ReadAll(g); err != nil {
			t.Fatal(err)
		}
		if g.str.chars != int64(utf8.RuneCountInString(want.Name)) || g.str.bytes != int64(len(want.Name)) {
			t.Errorf("%s: counted %d characters and %d bytes; decoded %d and %d", doc, g.str.chars, g.str.bytes, utf8.RuneCountInString(want.Name), len(want.Name))
		}
	}
}

// FuzzGuard reads any text through a guard, in reads of any size: it
// passes on a prefix of the text, all of it unless it refuses, and its
// only errors are refusals (or none), whatever the text.
func FuzzGuard(f *testing.F) {
	f.Add([]byte(`{"format":"sandbank-scenario/1","customers":[{"name":"a\u00e5\"b"}],"x":[1,{"y":"z"}]}`), uint8(3))
	f.Add([]byte(`{"NOTE":"\ud83d\ude00","accounts":[{"transactions":[{"creditorName":"x","Photo":[{"a":true}]}]}]}`), uint8(1))
	f.Fuzz(func(t *testing.T, doc []byte, chunk uint8) {
		passed, refused, err := guarded(doc, int(chunk))
		switch {
		case err != nil:
			t.Fatalf("an error that is no refusal: %v", err)
		case !bytes.HasPrefix(doc, passed):
			t.Fatal("passed bytes that are not the text's")
		case refused == nil && len(passed) != len(doc):
			t.Fatalf("passed %d bytes of %d, refusing nothing", len(passed), len(doc))
		case refused != nil && len(refused.Messages) != 1:
			t.Fatalf("a refusal of %d findings", len(refused.Messages))
		}
	})
}

// TestGuard_KeepsLittleOfDeepKeys: settings nested 2,000 deep with a key
// of 60 KiB at each level (the scenarios folder's list reads them without
// a hold) cost the guard a few bytes of each key, for the path.
func TestGuard_KeepsLittleOfDeepKeys(t *testing.T) {
	level := `{"` + strings.Repeat("k", 60<<10) + `":`
	deep := io.MultiReader(strings.NewReader(`{"settings":`), &repeatedText{s: level, n: 2000}, strings.NewReader("1"), &repeatedText{s: "}", n: 2001})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := io.Copy(io.Discard, newGuard(deep, reflect.TypeFor[Scenario]()))
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(`{"settings":`)+2000*len(level)+2002) {
		t.Fatalf("passed %d bytes, %v", n, err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 8<<20 {
		t.Fatalf("the guard allocated %d MiB", allocated>>20)
	}
}

// repeatedText reads s n times.
type repeatedText struct {
	s   string
	n   int
	off int
}

func (r *repeatedText) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.s[r.off:])
	if r.off += k; r.off == len(r.s) {
		r.off, r.n = 0, r.n-1
	}
	return k, nil
}
