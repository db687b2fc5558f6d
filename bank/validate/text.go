package validate

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// zeroWidthJoiner (U+200D) joins emoji into one picture (👩‍💻, 🏳️‍🌈).
const zeroWidthJoiner = '\u200D'

// hiddenNames names the characters Text refuses that a tester is most
// likely to meet, as Unicode names them.
var hiddenNames = map[rune]string{
	0x00: "NULL", 0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED", 0x0D: "CARRIAGE RETURN",
	0x1B: "ESCAPE", 0x7F: "DELETE", 0x85: "NEXT LINE",
	0xAD: "SOFT HYPHEN", 0x061C: "ARABIC LETTER MARK", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES",
	0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS",
	0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
	0xFFF9: "INTERLINEAR ANNOTATION ANCHOR", 0xFFFA: "INTERLINEAR ANNOTATION SEPARATOR", 0xFFFB: "INTERLINEAR ANNOTATION TERMINATOR",
	0xE0001: "LANGUAGE TAG", 0xE007F: "CANCEL TAG",
}

// Text checks the characters of a name or a text that a person will read
// (a creditor's name, a remittance text, a customer's name). It refuses
//
//   - control characters (Unicode category Cc: line breaks, tabs, NUL),
//   - the line and paragraph separators U+2028 and U+2029, and
//   - format characters (category Cf): the bidirectional controls
//     U+202A–U+202E and U+2066–U+2069 and the marks U+200E, U+200F and
//     U+061C, which reorder what a page shows around them; the zero-width
//     characters U+200B–U+200D, U+2060 and U+FEFF; the soft hyphen; the
//     invisible tag characters U+E0001 and U+E0020–U+E007F; and the rest of
//     the category.
//
// The one exception is U+200D ZERO WIDTH JOINER between two symbols
// (category So, where emoji are), as in 👩‍💻 or 🏳️‍🌈, optionally after a
// variation selector or a skin tone: it joins emoji into one picture and
// moves no text. Letters of every script, accents and emoji are accepted.
//
// The error names the first such character and where it is, counted in
// characters from 1, e.g. "contains U+202E RIGHT-TO-LEFT OVERRIDE at
// character 12; remove it".
func Text(s string) error {
	pos := 0
	for i, r := range s {
		pos++
		if !hidden(r) || (r == zeroWidthJoiner && joinsSymbols(s, i)) {
			continue
		}
		return fmt.Errorf("contains %s at character %d; remove it", describeHidden(r), pos)
	}
	return nil
}

// hidden reports whether r is a character Text refuses, wherever it is.
func hidden(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// describeHidden writes a refused character as its code point and name,
// e.g. "U+202E RIGHT-TO-LEFT OVERRIDE" or "U+0891, an invisible format
// character,".
func describeHidden(r rune) string {
	switch name, ok := hiddenNames[r]; {
	case ok:
		return fmt.Sprintf("U+%04X %s", r, name)
	case unicode.IsControl(r):
		return fmt.Sprintf("U+%04X, a control character,", r)
	case r >= 0xE0020 && r <= 0xE007E:
		return fmt.Sprintf("U+%04X, an invisible tag character,", r)
	}
	return fmt.Sprintf("U+%04X, an invisible format character,", r)
}

// joinsSymbols reports whether the zero width joiner at byte i of s
// stands between two symbols (category So), the first optionally followed
// by variation selectors and skin tones: an emoji ZWJ sequence.
func joinsSymbols(s string, i int) bool {
	before := s[:i]
	for {
		r, size := utf8.DecodeLastRuneInString(before)
		if !isEmojiModifier(r) {
			break
		}
		before = before[:len(before)-size]
	}
	prev, prevSize := utf8.DecodeLastRuneInString(before)
	next, nextSize := utf8.DecodeRuneInString(s[i+utf8.RuneLen(zeroWidthJoiner):])
	return prevSize > 0 && nextSize > 0 && unicode.Is(unicode.So, prev) && unicode.Is(unicode.So, next)
}

// isEmojiModifier reports whether r may follow an emoji and still belong
// to it: a variation selector (U+FE00–U+FE0F) or a skin tone (U+1F3FB–
// U+1F3FF).
func isEmojiModifier(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0x1F3FB && r <= 0x1F3FF)
}
