package validate

import (
	"fmt"
	"slices"
	"strings"
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
//   - the line and paragraph separators U+2028 and U+2029,
//   - format characters (category Cf): the bidirectional controls
//     U+202A–U+202E and U+2066–U+2069 and the marks U+200E, U+200F and
//     U+061C, which reorder what a page shows around them; the zero-width
//     characters U+200B–U+200D, U+2060 and U+FEFF; the soft hyphen; the
//     invisible tag characters U+E0001 and U+E0020–U+E007F; and the rest of
//     the category, and
//   - noncharacters (U+FDD0–U+FDEF and the last two code points of every
//     plane, U+FFFE and U+FFFF among them), which Unicode keeps for a
//     program's own use and out of texts.
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

// Name checks a name a person will read and must recognise: a customer's,
// an account's, a creditor's, a TPP's. It refuses what Text refuses, then
// private-use characters (U+E000–U+F8FF and planes 15 and 16), which have
// no agreed look and may show as nothing, then a name that Visible
// refuses: one that shows nothing. Letters of every script and emoji are
// accepted, and so are spaces between them (a no-break space too).
func Name(s string) error {
	if err := Text(s); err != nil {
		return err
	}
	pos := 0
	for _, r := range s {
		pos++
		if unicode.Is(unicode.Co, r) {
			return fmt.Errorf("contains U+%04X, a private-use character, at character %d; remove it: it has no agreed look and may show as nothing", r, pos)
		}
	}
	return visible(s, "write the name in letters, e.g. Ola Nordmann")
}

// Visible checks that a text shows something: it refuses an empty text
// and one of only blank characters, which a page shows as empty space.
// Blank are the spaces (Unicode's White_Space: U+0020, U+00A0 NO-BREAK
// SPACE, U+3000 IDEOGRAPHIC SPACE and the rest), the default-ignorable
// characters (format characters, variation selectors, U+034F COMBINING
// GRAPHEME JOINER, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0)
// and the characters drawn as nothing, U+2800 BRAILLE PATTERN BLANK and
// U+1D159 MUSICAL SYMBOL NULL NOTEHEAD. The error names what the text
// holds, e.g. "holds only U+3164 HANGUL FILLER, which shows as blank;
// write it in visible characters".
func Visible(s string) error {
	return visible(s, "write it in visible characters")
}

// visible is Visible, with instead saying what to write.
func visible(s, instead string) error {
	if s == "" {
		return fmt.Errorf("is empty; %s", instead)
	}
	var seen []rune
	for _, r := range s {
		if !blank(r) {
			return nil
		}
		if !slices.Contains(seen, r) {
			seen = append(seen, r)
		}
	}
	const listed = 2
	words := make([]string, 0, listed+1)
	for i, r := range seen {
		if i == listed {
			words = append(words, plural(len(seen)-listed, "other blank character", "other blank characters"))
			break
		}
		words = append(words, describeBlank(r))
	}
	list, verb := words[0], "shows"
	if len(words) > 1 {
		list, verb = strings.Join(words[:len(words)-1], ", ")+" and "+words[len(words)-1], "show"
	}
	return fmt.Errorf("holds only %s, which %s as blank; %s", list, verb, instead)
}

// blank reports whether r shows as nothing or as empty space: a space, a
// default-ignorable character or a blank glyph (see Visible).
func blank(r rune) bool {
	return unicode.In(r, unicode.White_Space, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Cf, unicode.Cc) ||
		r == '\u2800' || r == '\U0001D159'
}

// blankNames names the blank characters a tester is most likely to meet,
// as Unicode names them.
var blankNames = map[rune]string{
	0x20: "SPACE", 0xA0: "NO-BREAK SPACE", 0x034F: "COMBINING GRAPHEME JOINER",
	0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x1680: "OGHAM SPACE MARK",
	0x17B4: "KHMER VOWEL INHERENT AQ", 0x17B5: "KHMER VOWEL INHERENT AA",
	0x2000: "EN QUAD", 0x2001: "EM QUAD", 0x2002: "EN SPACE", 0x2003: "EM SPACE",
	0x2004: "THREE-PER-EM SPACE", 0x2005: "FOUR-PER-EM SPACE", 0x2006: "SIX-PER-EM SPACE",
	0x2007: "FIGURE SPACE", 0x2008: "PUNCTUATION SPACE", 0x2009: "THIN SPACE", 0x200A: "HAIR SPACE",
	0x202F: "NARROW NO-BREAK SPACE", 0x205F: "MEDIUM MATHEMATICAL SPACE",
	0x2800: "BRAILLE PATTERN BLANK", 0x3000: "IDEOGRAPHIC SPACE", 0x3164: "HANGUL FILLER",
	0xFE0F: "VARIATION SELECTOR-16", 0xFFA0: "HALFWIDTH HANGUL FILLER", 0x1D159: "MUSICAL SYMBOL NULL NOTEHEAD",
}

// describeBlank writes a blank character as its code point and name, e.g.
// "U+3164 HANGUL FILLER" or "U+E0100 (invisible)".
func describeBlank(r rune) string {
	name, ok := blankNames[r]
	if !ok {
		name, ok = hiddenNames[r]
	}
	switch {
	case ok:
		return fmt.Sprintf("U+%04X %s", r, name)
	case unicode.Is(unicode.White_Space, r):
		return fmt.Sprintf("U+%04X (a space)", r)
	}
	return fmt.Sprintf("U+%04X (invisible)", r)
}

// hidden reports whether r is a character Text refuses, wherever it is.
func hidden(r rune) bool {
	if r >= 0x20 && r < 0x7f { // printable ASCII: most text, quickly
		return false
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.In(r, unicode.Cf, unicode.Noncharacter_Code_Point)
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
	case unicode.Is(unicode.Noncharacter_Code_Point, r):
		return fmt.Sprintf("U+%04X, a noncharacter,", r)
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
