package validate

import (
	"strings"
	"testing"
	"unicode"
)

func TestText_AcceptsLettersOfEveryScriptAndEmoji(t *testing.T) {
	for _, s := range []string{
		"", "Ola Nordmann", "Blåbærsyltetøy ÆØÅ æøå", "Čáhcesuolu Ŋuorra Đuvvá šž ŧ", // Norwegian, Sámi
		"株式会社テスト", "北京银行", "김철수", "Ελληνικά", "Кириллица", "שלום", "مرحبا", // CJK, Greek, Cyrillic, RTL scripts
		"Kaffe ☕ og 🍰", "👋🏽 hei", "🇳🇴", "1️⃣", "e\u0301", // emoji, a flag, a keycap, a combining accent
		"👩\u200D💻", "🏳\uFE0F\u200D🌈", "👨\u200D👩\u200D👧", "👩🏽\u200D💻", "❤\uFE0F\u200D🔥", // emoji ZWJ sequences
		"Ola\u00A0Nordmann", "a\u2009b", // no-break and thin spaces are visible spaces
	} {
		if err := Text(s); err != nil {
			t.Errorf("Text(%q) = %v, want nil", s, err)
		}
	}
}

func TestText_RefusesControlBidiAndFormatCharacters(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Fjord Pay\u202E", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 10; remove it"},
		{"\u202DNO30", "contains U+202D LEFT-TO-RIGHT OVERRIDE at character 1; remove it"},
		{"a\u202Ab", "contains U+202A LEFT-TO-RIGHT EMBEDDING at character 2; remove it"},
		{"a\u202Bb", "contains U+202B RIGHT-TO-LEFT EMBEDDING at character 2; remove it"},
		{"a\u202Cb", "contains U+202C POP DIRECTIONAL FORMATTING at character 2; remove it"},
		{"æøå\u2066x", "contains U+2066 LEFT-TO-RIGHT ISOLATE at character 4; remove it"},
		{"a\u2067b", "contains U+2067 RIGHT-TO-LEFT ISOLATE at character 2; remove it"},
		{"a\u2068b", "contains U+2068 FIRST STRONG ISOLATE at character 2; remove it"},
		{"a\u2069b", "contains U+2069 POP DIRECTIONAL ISOLATE at character 2; remove it"},
		{"a\u200Eb", "contains U+200E LEFT-TO-RIGHT MARK at character 2; remove it"},
		{"a\u200Fb", "contains U+200F RIGHT-TO-LEFT MARK at character 2; remove it"},
		{"a\u061Cb", "contains U+061C ARABIC LETTER MARK at character 2; remove it"},
		{"a\u200Bb", "contains U+200B ZERO WIDTH SPACE at character 2; remove it"},
		{"a\u200Cb", "contains U+200C ZERO WIDTH NON-JOINER at character 2; remove it"},
		{"a\u200Db", "contains U+200D ZERO WIDTH JOINER at character 2; remove it"},
		{"a\u2060b", "contains U+2060 WORD JOINER at character 2; remove it"},
		{"\uFEFFOla", "contains U+FEFF ZERO WIDTH NO-BREAK SPACE at character 1; remove it"},
		{"Ola\u00ADNordmann", "contains U+00AD SOFT HYPHEN at character 4; remove it"},
		{"a\nb", "contains U+000A LINE FEED at character 2; remove it"},
		{"a\tb", "contains U+0009 CHARACTER TABULATION at character 2; remove it"},
		{"a\x00b", "contains U+0000 NULL at character 2; remove it"},
		{"a\x07b", "contains U+0007, a control character, at character 2; remove it"},
		{"a\u0085b", "contains U+0085 NEXT LINE at character 2; remove it"},
		{"a\u2028b", "contains U+2028 LINE SEPARATOR at character 2; remove it"},
		{"a\u2029b", "contains U+2029 PARAGRAPH SEPARATOR at character 2; remove it"},
		{"a\u0891b", "contains U+0891, an invisible format character, at character 2; remove it"},
		{"🏴\U000E0067\U000E0062\U000E007F", "contains U+E0067, an invisible tag character, at character 2; remove it"},
		// A joiner that does not stand between two symbols joins nothing
		// a reader can see.
		{"👩\u200D", "contains U+200D ZERO WIDTH JOINER at character 2; remove it"},
		{"\u200D💻", "contains U+200D ZERO WIDTH JOINER at character 1; remove it"},
		{"👩\u200Da", "contains U+200D ZERO WIDTH JOINER at character 2; remove it"},
		{"👩\u200D\u202E💻", "contains U+200D ZERO WIDTH JOINER at character 2; remove it"},
		{"👩\u200D💻\u202E", "contains U+202E RIGHT-TO-LEFT OVERRIDE at character 4; remove it"},
		// Noncharacters, in every plane.
		{"Ola\uFFFF", "contains U+FFFF, a noncharacter, at character 4; remove it"},
		{"\uFFFEOla", "contains U+FFFE, a noncharacter, at character 1; remove it"},
		{"a\uFDD0b", "contains U+FDD0, a noncharacter, at character 2; remove it"},
		{"a\uFDEFb", "contains U+FDEF, a noncharacter, at character 2; remove it"},
		{"a\U0001FFFEb", "contains U+1FFFE, a noncharacter, at character 2; remove it"},
		{"a\U0010FFFFb", "contains U+10FFFF, a noncharacter, at character 2; remove it"},
	} {
		err := Text(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Text(%q) = %v, want %q", tc.in, err, tc.want)
			continue
		}
		checkErrorStyle(t, "Text", tc.in, err)
	}
}

// TestText_RefusesEveryFormatCharacter checks the whole of Unicode: every
// control and format character and every noncharacter is refused on its
// own, and nothing else is.
func TestText_RefusesEveryFormatCharacter(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are not characters
		}
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Noncharacter_Code_Point)
		err := Text("a" + string(r) + "b")
		if (err != nil) != want {
			t.Fatalf("Text with U+%04X: %v, want refused %v", r, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "at character 2;") {
			t.Fatalf("Text with U+%04X: %v, want character 2", r, err)
		}
	}
}

func TestName_AcceptsNamesOfEveryScriptAndEmoji(t *testing.T) {
	for _, s := range []string{
		"Ola Nordmann", "Åse Ødegård", "Ola\u00A0Nordmann", "Kari\u3000Nordmann", " Ola ", // spaces between or around letters
		"김철수", "한국은행", "ㄱ", "株式会社テスト", "Ánde Ŋuorra Čáhppes", "שלום", "مرحبا", "e\u0301",
		"☕", "👩\u200D💻", "🏳\uFE0F\u200D🌈", "👨\u200D👩\u200D👧", "Koding 👩🏽\u200D💻", "🇳🇴", ".",
		"Ola\u3164Nordmann", "⠁⠃", // a filler or a blank pattern between visible characters shows as a space
	} {
		if err := Name(s); err != nil {
			t.Errorf("Name(%q) = %v, want nil", s, err)
		}
		if err := Visible(s); err != nil {
			t.Errorf("Visible(%q) = %v, want nil", s, err)
		}
	}
}

func TestName_RefusesBlankNamesAndPrivateUse(t *testing.T) {
	const instead = "; write the name in letters, e.g. Ola Nordmann"
	for _, tc := range []struct{ in, want string }{
		{"", "is empty" + instead},
		{" ", "holds only U+0020 SPACE, which shows as blank" + instead},
		{"\u3164", "holds only U+3164 HANGUL FILLER, which shows as blank" + instead},
		{"\u3164\u3164\u3164", "holds only U+3164 HANGUL FILLER, which shows as blank" + instead},
		{"\u115F\u1160", "holds only U+115F HANGUL CHOSEONG FILLER and U+1160 HANGUL JUNGSEONG FILLER, which show as blank" + instead},
		{"\uFFA0", "holds only U+FFA0 HALFWIDTH HANGUL FILLER, which shows as blank" + instead},
		{"\u2800", "holds only U+2800 BRAILLE PATTERN BLANK, which shows as blank" + instead},
		{"\u3000", "holds only U+3000 IDEOGRAPHIC SPACE, which shows as blank" + instead},
		{"\u00A0\u00A0", "holds only U+00A0 NO-BREAK SPACE, which shows as blank" + instead},
		{"\u2003\u202F\u205F", "holds only U+2003 EM SPACE, U+202F NARROW NO-BREAK SPACE and 1 other blank character, which show as blank" + instead},
		{"\u034F\uFE0F\U000E0100", "holds only U+034F COMBINING GRAPHEME JOINER, U+FE0F VARIATION SELECTOR-16 and 1 other blank character, which show as blank" + instead},
		{"\U0001D159", "holds only U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, which shows as blank" + instead},
		{"\U000E0100", "holds only U+E0100 (invisible), which shows as blank" + instead},
		{"\u1680\u2800", "holds only U+1680 OGHAM SPACE MARK and U+2800 BRAILLE PATTERN BLANK, which show as blank" + instead},
		// Invisible characters that Text refuses are named as Text names them.
		{"\u180E", "contains U+180E MONGOLIAN VOWEL SEPARATOR at character 1; remove it"},
		{"\uFFFF", "contains U+FFFF, a noncharacter, at character 1; remove it"},
		{"\u200B", "contains U+200B ZERO WIDTH SPACE at character 1; remove it"},
		// Private-use characters have no agreed look.
		{"\uE000", "contains U+E000, a private-use character, at character 1; remove it: it has no agreed look and may show as nothing"},
		{"Ola \uF8FF", "contains U+F8FF, a private-use character, at character 5; remove it: it has no agreed look and may show as nothing"},
		{"\U000F0000x", "contains U+F0000, a private-use character, at character 1; remove it: it has no agreed look and may show as nothing"},
		{"x\U0010FFFD", "contains U+10FFFD, a private-use character, at character 2; remove it: it has no agreed look and may show as nothing"},
	} {
		err := Name(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Name(%q) = %v, want %q", tc.in, err, tc.want)
			continue
		}
		checkErrorStyle(t, "Name", tc.in, err)
	}
}

// TestVisible_RefusesTextsThatShowNothing checks the blank rule on its own
// over the whole of Unicode: a character is blank (refused alone, and
// twice over) exactly when it is a space, a default-ignorable character or
// a blank pattern; a text of visible characters, or of blank ones around a
// visible one, passes.
func TestVisible_RefusesTextsThatShowNothing(t *testing.T) {
	if err := Visible("\u3000"); err == nil || err.Error() != "holds only U+3000 IDEOGRAPHIC SPACE, which shows as blank; write it in visible characters" {
		t.Errorf("Visible(U+3000) = %v", err)
	}
	if err := Visible(""); err == nil || err.Error() != "is empty; write it in visible characters" {
		t.Errorf("Visible(\"\") = %v", err)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		want := unicode.In(r, unicode.White_Space, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Cf, unicode.Cc) ||
			r == 0x2800 || r == 0x1D159
		s := string(r)
		if err := Visible(s + s); (err != nil) != want {
			t.Fatalf("Visible(U+%04X twice) = %v, want refused %v", r, err, want)
		} else if err != nil {
			checkErrorStyle(t, "Visible", s, err)
		}
		if err := Visible("\u3164" + s + "\u00A0"); (err != nil) != want {
			t.Fatalf("Visible(U+%04X between blanks) = %v, want refused %v", r, err, want)
		}
	}
}
