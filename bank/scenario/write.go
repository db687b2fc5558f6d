package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"sandbank/bank"
)

// Write writes the whole sandbox to w as a scenario that
// Import turns back into the same records with the same ids:
// the sandbox data and, in version 2, the bank's other records, its
// settings and its clock. The bytes are those a json.Encoder with
// SetEscapeHTML(false), and SetIndent("", indent) when indent is not "",
// writes for the scenario. It writes account by account, reading each
// account's transactions a page at a time, so that memory does not grow
// with them; the rest of the scenario is held while it is written. It
// waits for a batch run under way and reads one storage transaction, so
// the file holds one moment's data and no half of a run. A note over
// MaxNote bytes is refused, as import would refuse it.
func Write(s *bank.Sandbox, w io.Writer, note, indent string) error {
	if len(note) > MaxNote {
		return tooManyBytes("note", MaxNote, int64(len(note))) // import would refuse it
	}
	return s.Export(func(tx bank.Tx, clock bank.ScenarioClock, settings bank.Settings) error {
		sc, err := exportHead(tx, note, clock, settings)
		if err != nil {
			return err
		}
		accounts := sc.Accounts
		sc.Accounts = []Account{}
		head, err := encodeScenarioPart(sc, "", indent)
		if err != nil {
			return err
		}
		// The accounts go where the empty list is: its key is the first
		// text of this form, as a string's quotes would be escaped.
		marker := `"accounts":[`
		if indent != "" {
			marker = `"accounts": [`
		}
		at := bytes.Index(head, []byte(marker+"]"))
		if at < 0 {
			return errors.New("the encoded scenario has no accounts list")
		}
		at += len(marker)
		bw := bufio.NewWriterSize(w, 64<<10)
		_, _ = bw.Write(head[:at])
		for i, a := range accounts {
			if i > 0 {
				_ = bw.WriteByte(',')
			}
			if err := writeAccount(tx, bw, a, indent); err != nil {
				return err
			}
		}
		if len(accounts) > 0 && indent != "" {
			_, _ = bw.WriteString("\n" + indent)
		}
		_, _ = bw.Write(head[at:])
		tx.ReleasePages()
		return bw.Flush()
	})
}

// writeAccount writes an account of a scenario's accounts list with its
// transactions, at the depth of the list's items.
func writeAccount(tx bank.Tx, w *bufio.Writer, a Account, indent string) error {
	item, field, inner := "", "", ""
	if indent != "" {
		item = "\n" + strings.Repeat(indent, 2)
		field = item + indent
		inner = field + indent
	}
	header, err := encodeScenarioPart(a, item[min(1, len(item)):], indent)
	if err != nil {
		return err
	}
	// The header ends in "}" (compact) or item+"}" (indented); the
	// transactions come before that end, as the last field.
	end := len(header) - len(item) - 1
	_, _ = w.WriteString(item)
	first := true
	err = eachTransaction(tx, a.ID, func(t bank.Transaction) error {
		if first {
			_, _ = w.Write(header[:end])
			_, _ = w.WriteString("," + field + `"transactions":`)
			if indent != "" {
				_ = w.WriteByte(' ')
			}
			_ = w.WriteByte('[')
		} else {
			_ = w.WriteByte(',')
		}
		first = false
		_, _ = w.WriteString(inner)
		data, err := encodeScenarioPart(Transaction{ID: t.ID, NewTransaction: exportTransaction(t)}, inner[min(1, len(inner)):], indent)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if first {
		_, err = w.Write(header)
		return err
	}
	_, err = w.WriteString(field + "]" + item + "}")
	return err
}

// encodeScenarioPart encodes v as json.Encoder does with SetEscapeHTML(false)
// and, when indent is set, SetIndent(prefix, indent); a whole scenario
// (prefix "") keeps the encoder's newline at the end, a part does not.
func encodeScenarioPart(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if _, whole := v.(Scenario); whole {
		return b.Bytes(), nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
