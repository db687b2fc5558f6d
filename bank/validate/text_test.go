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
// control and format character is refused on its own, and nothing else is.
func TestText_RefusesEveryFormatCharacter(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are not characters
		}
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
		err := Text("a" + string(r) + "b")
		if (err != nil) != want {
			t.Fatalf("Text with U+%04X: %v, want refused %v", r, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "at character 2;") {
			t.Fatalf("Text with U+%04X: %v, want character 2", r, err)
		}
	}
}
