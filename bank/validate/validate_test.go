package validate

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// knownNorwegianAccounts are valid Norwegian BBANs with their IBANs. They are
// verified independently of this package: the MOD11 sums are worked out by
// hand below (weights 5,4,3,2,7,6,5,4,3,2), and the IBAN check digits were
// computed separately as 98 - (BBAN || "2324" || "00") mod 97 with arbitrary
// precision integers ("N" = 23, "O" = 24) and re-checked to give mod 97 == 1.
var knownNorwegianAccounts = []struct {
	bban, iban string
}{
	// IBAN registry example.
	// 8*5+6*4+0*3+1*2+1*7+1*6+1*5+7*4+9*3+4*2 = 40+24+0+2+7+6+5+28+27+8 = 147;
	// 147 % 11 = 4; 11-4 = 7.
	{"86011117947", "NO9386011117947"},
	// 1*5+2*4+3*3+4*2+5*7+6*6+7*5+8*4+9*3+0*2 = 5+8+9+8+35+36+35+32+27+0 = 195;
	// 195 % 11 = 8; 11-8 = 3.
	{"12345678903", "NO7112345678903"},
	// 1*5+5*4+0*3+3*2+1*7+2*6+3*5+4*4+5*3+6*2 = 5+20+0+6+7+12+15+16+15+12 = 108;
	// 108 % 11 = 9; 11-9 = 2.
	{"15031234562", "NO7215031234562"},
	// 1*5+2*4+0+0+1*7+0+0+0+0+0 = 20; 20 % 11 = 9; 11-9 = 2.
	{"12001000002", "NO4812001000002"},
	// 1*5+2*4+0+0+1*7+0+0+0+0+1*2 = 22; 22 % 11 = 0; 11-0 = 11 -> 0.
	{"12001000010", "NO2612001000010"},
	// 9*5+7*4+1*3+0*2+0*7+5*6+1*5+2*4+3*3+4*2 = 45+28+3+0+0+30+5+8+9+8 = 136;
	// 136 % 11 = 4; 11-4 = 7.
	{"97100512347", "NO5297100512347"},
	// 6*5+0*4+1*3+1*2+0+0+0+0+0+0 = 35; 35 % 11 = 2; 11-2 = 9.
	{"60110000009", "NO0960110000009"},
	// 3*5+0+0+0+1*7+1*6+1*5+1*4+1*3+1*2 = 42; 42 % 11 = 9; 11-9 = 2.
	{"30001111112", "NO6030001111112"},
}

// checkTenBBANPrefix is 10 digits whose MOD11 check digit would be 10:
// 1*5+2*4+3*3+4*2+5*7+6*6+7*5+8*4+9*3+2*2 = 199; 199 % 11 = 1; 11-1 = 10.
const checkTenBBANPrefix = "1234567892"

func TestNorwegianBBAN_Valid(t *testing.T) {
	for _, tc := range knownNorwegianAccounts {
		if err := NorwegianBBAN(tc.bban); err != nil {
			t.Errorf("NorwegianBBAN(%q) = %v, want nil", tc.bban, err)
		}
		if !IsNorwegianBBANShape(tc.bban) {
			t.Errorf("IsNorwegianBBANShape(%q) = false, want true", tc.bban)
		}
	}
}

func TestNorwegianBBAN_Invalid(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "must not be empty; expected an 11-digit Norwegian account number"},
		{"wrong check digit", "86011117948", "check digit is 8, expected 7 (MOD11)"},
		{"wrong check digit 0", "12345678900", "check digit is 0, expected 3 (MOD11)"},
		{"check 11 means 0", "12001000011", "check digit is 1, expected 0 (MOD11)"},
		{"10 digits", "8601111794", "has 10 digits, expected 11"},
		{"12 digits", "860111179470", "has 12 digits, expected 11"},
		{"1 digit", "8", "has 1 digit, expected 11"},
		{"letter", "8601111794A", "contains character 'A' at position 11; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"spaces", "8601 11 17947", "contains character ' ' at position 5; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"dots", "8601.11.17947", "contains character '.' at position 5; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"leading space", " 86011117947", "contains character ' ' at position 1; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"non-ASCII digit", "8601111794٧", "contains character '٧' at position 11; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"invalid UTF-8", "86011\xff17947", "contains invalid UTF-8 byte 0xFF at position 6; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"check digit would be 10", checkTenBBANPrefix + "0", "is not a valid Norwegian account number: the MOD11 check digit for its first 10 digits would be 10, so no valid check digit exists"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := NorwegianBBAN(tc.in)
			if err == nil {
				t.Fatalf("NorwegianBBAN(%q) = nil, want %q", tc.in, tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("NorwegianBBAN(%q) = %q, want %q", tc.in, err.Error(), tc.wantErr)
			}
		})
	}
}

func TestNorwegianBBAN_CheckDigitTen(t *testing.T) {
	// No last digit can make these 10 digits a valid account number.
	for d := '0'; d <= '9'; d++ {
		s := checkTenBBANPrefix + string(d)
		err := NorwegianBBAN(s)
		if err == nil || !strings.Contains(err.Error(), "would be 10") {
			t.Errorf("NorwegianBBAN(%q) = %v, want the check digit 10 error", s, err)
		}
	}
}

func TestNorwegianBBAN_ExactlyOneCheckDigit(t *testing.T) {
	// For the first 10 digits of each known account exactly one last digit,
	// the known one, is valid.
	for _, tc := range knownNorwegianAccounts {
		for d := byte('0'); d <= '9'; d++ {
			s := tc.bban[:10] + string(d)
			err := NorwegianBBAN(s)
			if want := d == tc.bban[10]; (err == nil) != want {
				t.Errorf("NorwegianBBAN(%q) = %v, want valid=%v", s, err, want)
			}
		}
	}
}

func TestIsNorwegianBBANShape(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"86011117947", true},
		{"86011117948", true}, // shape only, check digit not verified
		{"00000000000", true},
		{"", false},
		{"8601111794", false},
		{"860111179470", false},
		{"8601111794A", false},
		{"8601 111794", false},
		{"8601111794٧", false},
		{"NO9386011117947", false},
	}
	for _, tc := range tests {
		if got := IsNorwegianBBANShape(tc.in); got != tc.want {
			t.Errorf("IsNorwegianBBANShape(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestNorwegianIBAN_Known(t *testing.T) {
	for _, tc := range knownNorwegianAccounts {
		got, err := NorwegianIBAN(tc.bban)
		if err != nil || got != tc.iban {
			t.Errorf("NorwegianIBAN(%q) = %q, %v, want %q, nil", tc.bban, got, err, tc.iban)
		}
		if err := IBAN(tc.iban); err != nil {
			t.Errorf("IBAN(%q) = %v, want nil", tc.iban, err)
		}
	}
}

func TestNorwegianIBAN_RoundTrip(t *testing.T) {
	for _, tc := range knownNorwegianAccounts {
		iban, err := NorwegianIBAN(tc.bban)
		if err != nil {
			t.Fatalf("NorwegianIBAN(%q): %v", tc.bban, err)
		}
		bban, ok := BBANFromNorwegianIBAN(iban)
		if !ok || bban != tc.bban {
			t.Errorf("BBANFromNorwegianIBAN(%q) = %q, %v, want %q, true", iban, bban, ok, tc.bban)
		}
	}
}

func TestNorwegianIBAN_InvalidBBAN(t *testing.T) {
	for _, in := range []string{"", "86011117948", "8601111794", "8601 111794", checkTenBBANPrefix + "0", "NO9386011117947"} {
		got, err := NorwegianIBAN(in)
		if err == nil || got != "" {
			t.Errorf("NorwegianIBAN(%q) = %q, %v, want \"\", error", in, got, err)
			continue
		}
		if want := NorwegianBBAN(in); want == nil || err.Error() != want.Error() {
			t.Errorf("NorwegianIBAN(%q) error = %q, want the NorwegianBBAN error %v", in, err, want)
		}
	}
}

// Seeding tools use IBANs whose BBAN fails MOD11: the IBAN of any 11
// digits passes mod 97 and holds them.
func TestNorwegianIBANOfShape(t *testing.T) {
	for _, bban := range []string{"86011117947", "86011117948", checkTenBBANPrefix + "0"} {
		iban, ok := NorwegianIBANOfShape(bban)
		if !ok || IBAN(iban) != nil {
			t.Errorf("NorwegianIBANOfShape(%q) = %q, %v; IBAN says %v", bban, iban, ok, IBAN(iban))
		}
		if back, ok := BBANFromNorwegianIBAN(iban); !ok || back != bban {
			t.Errorf("BBANFromNorwegianIBAN(%q) = %q, %v, want %q", iban, back, ok, bban)
		}
	}
	if iban, _ := NorwegianIBANOfShape("86011117947"); iban != "NO9386011117947" {
		t.Errorf("NorwegianIBANOfShape(86011117947) = %q, want NO9386011117947", iban)
	}
	for _, bban := range []string{"", "8601111794", "8601.111794", "860111179470"} {
		if iban, ok := NorwegianIBANOfShape(bban); ok || iban != "" {
			t.Errorf("NorwegianIBANOfShape(%q) = %q, %v, want \"\", false", bban, iban, ok)
		}
	}
}

func TestBBANFromNorwegianIBAN_NotOK(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"BBAN only", "86011117947"},
		{"lower case", "no9386011117947"},
		{"too short", "NO938601111794"},
		{"too long", "NO93860111179470"},
		{"bad check digits", "NO9486011117947"},
		{"other country", "DK5000400440116243"},
		{"spaces", "NO93 8601 1117 947"},
		// Valid mod-97 (check digits computed independently) but the BBAN
		// part has a letter, which a Norwegian BBAN never has.
		{"letter in BBAN", "NO088601111794A"},
	}
	for _, tc := range tests {
		if bban, ok := BBANFromNorwegianIBAN(tc.in); ok || bban != "" {
			t.Errorf("%s: BBANFromNorwegianIBAN(%q) = %q, %v, want \"\", false", tc.name, tc.in, bban, ok)
		}
	}
}

// ibanExamples has one IBAN per registry country. All but the ones marked
// synthetic are the examples published in the SWIFT IBAN registry.
var ibanExamples = map[string]string{
	"AD": "AD1200012030200359100100",
	"AE": "AE070331234567890123456",
	"AL": "AL47212110090000000235698741",
	"AT": "AT611904300234573201",
	"AZ": "AZ21NABZ00000000137010001944",
	"BA": "BA391290079401028494",
	"BE": "BE68539007547034",
	"BG": "BG80BNBG96611020345678",
	"BH": "BH67BMAG00001299123456",
	"BI": "BI4210000100010000332045181",
	"BR": "BR1800360305000010009795493C1",
	"BY": "BY13NBRB3600900000002Z00AB00",
	"CH": "CH9300762011623852957",
	"CR": "CR05015202001026284066",
	"CY": "CY17002001280000001200527600",
	"CZ": "CZ6508000000192000145399",
	"DE": "DE89370400440532013000",
	"DJ": "DJ5011111111111111111111111", // synthetic
	"DK": "DK5000400440116243",
	"DO": "DO28BAGR00000001212453611324",
	"EE": "EE382200221020145685",
	"EG": "EG380019000500000000263180002",
	"ES": "ES9121000418450200051332",
	"FI": "FI2112345600000785",
	"FK": "FK3811111111111111", // synthetic
	"FO": "FO6264600001631634",
	"FR": "FR1420041010050500013M02606",
	"GB": "GB29NWBK60161331926819",
	"GE": "GE29NB0000000101904917",
	"GI": "GI75NWBK000000007099453",
	"GL": "GL8964710001000206",
	"GR": "GR1601101250000000012300695",
	"GT": "GT82TRAJ01020000001210029690",
	"HN": "HN88CABF00000000000250005469",
	"HR": "HR1210010051863000160",
	"HU": "HU42117730161111101800000000",
	"IE": "IE29AIBK93115212345678",
	"IL": "IL620108000000099999999",
	"IQ": "IQ98NBIQ850123456789012",
	"IS": "IS140159260076545510730339",
	"IT": "IT60X0542811101000000123456",
	"JO": "JO94CBJO0010000000000131000302",
	"KW": "KW81CBKU0000000000001234560101",
	"KZ": "KZ86125KZT5004100100",
	"LB": "LB62099900000001001901229114",
	"LC": "LC55HEMM000100010012001200023015",
	"LI": "LI21088100002324013AA",
	"LT": "LT121000011101001000",
	"LU": "LU280019400644750000",
	"LV": "LV80BANK0000435195001",
	"LY": "LY83002048000020100120361",
	"MC": "MC5811222000010123456789030",
	"MD": "MD24AG000225100013104168",
	"ME": "ME25505000012345678951",
	"MK": "MK07250120000058984",
	"MN": "MN361111111111111111", // synthetic
	"MR": "MR1300020001010000123456753",
	"MT": "MT84MALT011000012345MTLCAST001S",
	"MU": "MU17BOMM0101101030300200000MUR",
	"NI": "NI03111111111111111111111111", // synthetic
	"NL": "NL91ABNA0417164300",
	"NO": "NO9386011117947",
	"OM": "OM591111111111111111111", // synthetic
	"PK": "PK36SCBL0000001123456702",
	"PL": "PL61109010140000071219812874",
	"PS": "PS92PALS000000000400123456702",
	"PT": "PT50000201231234567890154",
	"QA": "QA58DOHB00001234567890ABCDEFG",
	"RO": "RO49AAAA1B31007593840000",
	"RS": "RS35260005601001611379",
	"RU": "RU8211111111111111111111111111111", // synthetic
	"SA": "SA0380000000608010167519",
	"SC": "SC18SSCB11010000000000001497USD",
	"SD": "SD2129010501234001",
	"SE": "SE4550000000058398257466",
	"SI": "SI56263300012039086",
	"SK": "SK3112000000198742637541",
	"SM": "SM86U0322509800000000270100",
	"SO": "SO171111111111111111111", // synthetic
	"ST": "ST23000100010051845310146",
	"SV": "SV62CENR00000000000000700025",
	"TL": "TL380080012345678910157",
	"TN": "TN5910006035183598478831",
	"TR": "TR330006100519786457841326",
	"UA": "UA213223130000026007233566001",
	"VA": "VA59001123000012345678",
	"VG": "VG96VPVG0000012345678901",
	"XK": "XK051212012345678906",
	"YE": "YE15CBYE0001018861234567891234",
}

func TestIBAN_Valid(t *testing.T) {
	// The examples named in the service spec, then one for every registry
	// country.
	for _, in := range []string{
		"NO9386011117947",
		"DE89370400440532013000",
		"GB29NWBK60161331926819",
		"SE4550000000058398257466",
		"DK5000400440116243",
		"FI2112345600000785",
		"FR1420041010050500013M02606",
		"NL91ABNA0417164300",
	} {
		if err := IBAN(in); err != nil {
			t.Errorf("IBAN(%q) = %v, want nil", in, err)
		}
	}
	for country, in := range ibanExamples {
		if err := IBAN(in); err != nil {
			t.Errorf("%s: IBAN(%q) = %v, want nil", country, in, err)
		}
	}
}

func TestIBAN_RegistryTable(t *testing.T) {
	if len(ibanLengths) != 89 {
		t.Errorf("len(ibanLengths) = %d, want 89", len(ibanLengths))
	}
	for country, n := range ibanLengths {
		ex, ok := ibanExamples[country]
		if !ok {
			t.Errorf("no example IBAN for %s", country)
			continue
		}
		if len(ex) != n || ex[:2] != country {
			t.Errorf("%s: example %q has length %d, table says %d", country, ex, len(ex), n)
		}
		if n < 15 || n > ibanMaxLen {
			t.Errorf("%s: length %d out of range 15..34", country, n)
		}
		if !Country(country) && country != "XK" {
			t.Errorf("IBAN country %s is not an ISO 3166-1 code", country)
		}
	}
	for country := range ibanExamples {
		if _, ok := ibanLengths[country]; !ok {
			t.Errorf("example for %s, which is not in the table", country)
		}
	}
}

func TestIBAN_BadLength(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"NO938601111794", "is 14 characters long, expected 15 for an IBAN from NO"},
		{"NO93860111179470", "is 16 characters long, expected 15 for an IBAN from NO"},
		{"DE8937040044053201300", "is 21 characters long, expected 22 for an IBAN from DE"},
		{"NO", "is 2 characters long, expected 15 for an IBAN from NO"},
		{"N", "is 1 character long, too short for an IBAN (it starts with a 2-letter country code and 2 check digits)"},
	}
	for _, tc := range tests {
		assertErr(t, "IBAN", IBAN, tc.in, tc.wantErr)
	}
}

func TestIBAN_BadCheckDigits(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"NO9486011117947", "check digits are 94, expected 93 (ISO 13616 mod-97)"},
		{"DE88370400440532013000", "check digits are 88, expected 89 (ISO 13616 mod-97)"},
		{"GB29NWBK60161331926818", "check digits are 29, expected 56 (ISO 13616 mod-97)"},
		// Transposed BBAN digits.
		{"NO9368011117947", "check digits are 93, expected 30 (ISO 13616 mod-97)"},
		{"NOAB86011117947", `check digits must be 2 digits after the country code, got "AB"`},
		// NO97 12345678920 is the correct IBAN for this BBAN, so NO00 also
		// gives mod 97 == 1, but 00, 01 and 99 are never valid check digits.
		{"NO0012345678920", "check digits are 00, expected 97 (ISO 13616 mod-97)"},
	}
	for _, tc := range tests {
		assertErr(t, "IBAN", IBAN, tc.in, tc.wantErr)
	}
}

func TestIBAN_LowerCase(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"no9386011117947", "contains lower-case letter 'n' at position 1; IBAN letters must be upper case"},
		{"No9386011117947", "contains lower-case letter 'o' at position 2; IBAN letters must be upper case"},
		{"GB29nwbk60161331926819", "contains lower-case letter 'n' at position 5; IBAN letters must be upper case"},
	}
	for _, tc := range tests {
		assertErr(t, "IBAN", IBAN, tc.in, tc.wantErr)
	}
}

func TestIBAN_UnknownCountry(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"XX9386011117947", "unknown country code XX (not in the IBAN registry)"},
		{"US64SVBKUS6S3300958879", "country US does not use IBANs (it is not in the IBAN registry)"},
		// Jersey IBANs use GB.
		{"JE29NWBK60161331926819", "country JE does not use IBANs (it is not in the IBAN registry)"},
		{"1234567890", `must start with a 2-letter country code, got "12"`},
		{"N09386011117947", `must start with a 2-letter country code, got "N0"`},
	}
	for _, tc := range tests {
		assertErr(t, "IBAN", IBAN, tc.in, tc.wantErr)
	}
}

func TestIBAN_TooLong(t *testing.T) {
	assertErr(t, "IBAN", IBAN, "LC55HEMM000100010012001200023015123", "is 35 characters long, an IBAN has at most 34")
	assertErr(t, "IBAN", IBAN, strings.Repeat("A", 1<<20), "is 1048576 characters long, an IBAN has at most 34")
	assertErr(t, "IBAN", IBAN, strings.Repeat("Ø", 35), "is 35 characters long, an IBAN has at most 34")
}

func TestIBAN_NonAlphanumeric(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "must not be empty"},
		{"NO93 8601 1117 947", "contains character ' ' at position 5; only A-Z and 0-9 are allowed (no spaces or separators)"},
		{"NO93-8601-1117-947", "contains character '-' at position 5; only A-Z and 0-9 are allowed (no spaces or separators)"},
		{"NO938601111794\x00", `contains character '\x00' at position 15; only A-Z and 0-9 are allowed (no spaces or separators)`},
		{"NØ9386011117947", "contains character 'Ø' at position 2; only A-Z and 0-9 are allowed (no spaces or separators)"},
		{"NO93\xfe6011117947", "contains invalid UTF-8 byte 0xFE at position 5; only A-Z and 0-9 are allowed (no spaces or separators)"},
		{"NO93\u00a08601", `contains character '\u00a0' at position 5; only A-Z and 0-9 are allowed (no spaces or separators)`},
	}
	for _, tc := range tests {
		assertErr(t, "IBAN", IBAN, tc.in, tc.wantErr)
	}
}

func TestKID_Valid(t *testing.T) {
	tests := []struct{ name, in string }{
		// MOD10 (Luhn) of 123456789: doubling every second digit from the
		// right, 9->18->9, 8, 7->14->5, 6, 5->10->1, 4, 3->6, 2, 1->2;
		// sum 43; (10 - 3) % 10 = 7. (MOD11 would give 2.)
		{"MOD10", "1234567897"},
		// The classic Luhn example; MOD11 would give 6.
		{"MOD10 Luhn example", "79927398713"},
		// Luhn of 1: 1->2; (10-2) = 8. MOD11: 1*2 = 2; 11-2 = 9.
		{"MOD10 2 digits", "18"},
		// Luhn of 6: 6->12->3; 10-3 = 7. (MOD11: 6*2 = 12; 12%11 = 1; 10: none.)
		{"MOD10 where MOD11 has no check digit", "67"},
		// MOD11 of 123456789 from the right with weights 2..7,2..:
		// 9*2+8*3+7*4+6*5+5*6+4*7+3*2+2*3+1*4 = 18+24+28+30+30+28+6+6+4 = 174;
		// 174 % 11 = 9; 11-9 = 2. (Luhn would give 7.)
		{"MOD11", "1234567892"},
		// MOD11 of 987654: 4*2+5*3+6*4+7*5+8*6+9*7 = 8+15+24+35+48+63 = 193;
		// 193 % 11 = 6; 11-6 = 5. (Luhn would give 1.)
		{"MOD11 7 digits", "9876545"},
		// Both rules give 4 for 1234567.
		{"MOD10 and MOD11", "12345674"},
		// All zeros: both sums are 0; Luhn 0, MOD11 11 -> 0.
		{"zeros", "0000000000"},
		// 25 digits; Luhn check digit 0 (MOD11 would give 1).
		{"25 digits", "1234567890123456789012340"},
	}
	for _, tc := range tests {
		if err := KID(tc.in); err != nil {
			t.Errorf("%s: KID(%q) = %v, want nil", tc.name, tc.in, err)
		}
	}
}

func TestCompleteKID(t *testing.T) {
	for _, c := range []struct{ payload, want string }{
		{"123456789", "1234567897"}, {"7992739871", "79927398713"}, {"1", "18"}, {"000000000", "0000000000"},
	} {
		got := CompleteKID(c.payload)
		if got != c.want || KID(got) != nil {
			t.Errorf("CompleteKID(%q) = %q (KID: %v), want %q", c.payload, got, KID(got), c.want)
		}
	}
}

func TestKID_Invalid(t *testing.T) {
	tests := []struct{ name, in, wantErr string }{
		{"empty", "", "must not be empty; a KID has 2 to 25 digits"},
		{"neither rule", "1234567890", "check digit is 0, expected 7 (MOD10) or 2 (MOD11)"},
		{"MOD11 has no check digit", "60", "check digit is 0, expected 7 (MOD10); MOD11 gives no valid check digit for these digits"},
		{"1 digit", "7", "has 1 digit, expected 2 to 25"},
		{"26 digits", "12345678901234567890123459", "has 26 digits, expected 2 to 25"},
		{"letters", "12345A7897", "contains character 'A' at position 6; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"space", "1234 567897", "contains character ' ' at position 5; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"MOD11 dash", "123456789-", "contains character '-' at position 10; only digits 0-9 are allowed (no spaces, dots or other separators)"},
		{"invalid UTF-8", "12\x80", "contains invalid UTF-8 byte 0x80 at position 3; only digits 0-9 are allowed (no spaces, dots or other separators)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErr(t, "KID", KID, tc.in, tc.wantErr)
		})
	}
}

func TestBIC_Valid(t *testing.T) {
	for _, in := range []string{"DNBANOKK", "DNBANOKKXXX", "NDEANOKK", "ESSESESS", "DEUTDEFF500", "HANDNOKK", "SPSONO22", "DABADKKK", "ABCDNO2A", "ABCDNOZ9123"} {
		if err := BIC(in); err != nil {
			t.Errorf("BIC(%q) = %v, want nil", in, err)
		}
	}
}

func TestBIC_Invalid(t *testing.T) {
	tests := []struct{ name, in, wantErr string }{
		{"empty", "", "must not be empty; a BIC has 8 or 11 characters"},
		{"lower case", "dnbanokk", "contains lower-case letter 'd' at position 1; BIC letters must be upper case"},
		{"lower case branch", "DNBANOKKxxx", "contains lower-case letter 'x' at position 9; BIC letters must be upper case"},
		{"9 chars", "DNBANOKKX", "is 9 characters long, expected 8 or 11"},
		{"7 chars", "DNBANOK", "is 7 characters long, expected 8 or 11"},
		{"12 chars", "DNBANOKKXXXX", "is 12 characters long, expected 8 or 11"},
		{"digit in bank code", "DNB4NOKK", "character '4' at position 4 must be a letter A-Z (the first 6 characters are the bank and country code)"},
		{"digit in country", "DNBAN0KK", "character '0' at position 6 must be a letter A-Z (the first 6 characters are the bank and country code)"},
		{"0 at position 7", "DNBANO0K", "character '0' at position 7 must be A-Z or 2-9 (location code; 0 and 1 are not allowed)"},
		{"1 at position 7", "DNBANO1K", "character '1' at position 7 must be A-Z or 2-9 (location code; 0 and 1 are not allowed)"},
		{"O at position 8", "DNBANOKO", "letter 'O' is not allowed at position 8 (location code); use A-N, P-Z or 0-9"},
		{"dash at position 8", "DNBANOK-", "character '-' at position 8 must be A-N, P-Z or 0-9 (location code)"},
		{"bad branch", "DNBANOKKXX-", "character '-' at position 11 must be A-Z or 0-9 (branch code)"},
		{"space", "DNBA NOKK", "is 9 characters long, expected 8 or 11"},
		{"non-ASCII", "DNBÅNOKK", "character 'Å' at position 4 must be a letter A-Z (the first 6 characters are the bank and country code)"},
		{"invalid UTF-8", "DNBANOK\xff", "invalid UTF-8 byte 0xFF at position 8 must be A-N, P-Z or 0-9 (location code)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErr(t, "BIC", BIC, tc.in, tc.wantErr)
		})
	}
}

// specCurrencies is the currency set copied from the service specification.
const specCurrencies = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYR BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GGP GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS IMP INR IQD IRR ISK JEP JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRO MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SPL SRD STD SVC SYP SZL THB TJS TMT TND TOP TRY TTD TVD TWD TZS UAH UGX USD UYU UZS VEF VND VUV WST XAF XCD XDR XOF XPF YER ZAR ZMW ZWD"

func TestCurrency_ExactSet(t *testing.T) {
	spec := strings.Fields(specCurrencies)
	for _, c := range spec {
		if !Currency(c) {
			t.Errorf("Currency(%q) = false, want true", c)
		}
	}
	if len(minorUnits) != len(spec) {
		t.Errorf("currency table has %d codes, spec has %d", len(minorUnits), len(spec))
	}
	for _, c := range []string{"", "nok", "Nok", "NOKK", "NO", "XYZ", "BYN", "VES", "MRU", "STN", "ZWL", "XAU", "BTC", "NOK "} {
		if Currency(c) {
			t.Errorf("Currency(%q) = true, want false", c)
		}
	}
}

func TestMinorUnits(t *testing.T) {
	tests := []struct {
		code string
		want int
	}{
		{"NOK", 2}, {"SEK", 2}, {"DKK", 2}, {"EUR", 2}, {"USD", 2}, {"GBP", 2},
		{"JPY", 0}, {"ISK", 0}, {"KRW", 0}, {"CLP", 0}, {"XOF", 0}, {"XAF", 0},
		{"XPF", 0}, {"VND", 0}, {"UGX", 0}, {"PYG", 0}, {"BYR", 0},
		{"BHD", 3}, {"KWD", 3}, {"JOD", 3}, {"OMR", 3}, {"TND", 3}, {"LYD", 3}, {"IQD", 3},
		{"MRO", 2}, {"XDR", 2}, {"GGP", 2}, {"SPL", 2},
		{"XYZ", -1}, {"", -1}, {"nok", -1}, {"BYN", -1},
	}
	for _, tc := range tests {
		if got := MinorUnits(tc.code); got != tc.want {
			t.Errorf("MinorUnits(%q) = %d, want %d", tc.code, got, tc.want)
		}
	}
	for c, n := range minorUnits {
		if n < 0 || n > 3 {
			t.Errorf("MinorUnits(%q) = %d, want 0..3", c, n)
		}
	}
}

func TestCountry(t *testing.T) {
	for _, c := range []string{"NO", "SE", "DK", "FI", "IS", "DE", "US", "GB", "SJ", "BV", "AX", "SS", "AQ"} {
		if !Country(c) {
			t.Errorf("Country(%q) = false, want true", c)
		}
	}
	for _, c := range []string{"XX", "no", "No", "NOR", "", "N", "UK", "EU", "XK", "ZZ", "AN", "YU", "N\x00"} {
		if Country(c) {
			t.Errorf("Country(%q) = true, want false", c)
		}
	}
	if len(countries) != 249 {
		t.Errorf("len(countries) = %d, want 249", len(countries))
	}
}

func TestPurposeCode(t *testing.T) {
	for _, c := range strings.Fields("INVS SALA IDCP CASH CORT INTC PENS SSBE SUPP TAXS TREA VATX LOAN OTHR") {
		if !PurposeCode(c) {
			t.Errorf("PurposeCode(%q) = false, want true", c)
		}
	}
	for _, c := range []string{"", "sala", "SAL", "SALAR", "GDDS", "OTHR "} {
		if PurposeCode(c) {
			t.Errorf("PurposeCode(%q) = true, want false", c)
		}
	}
}

func TestRegulatoryReportingCode(t *testing.T) {
	for _, c := range strings.Fields("14 26 29 31 35 38 41 43 45 51 52 53 71 79 81 82") {
		if !RegulatoryReportingCode(c) {
			t.Errorf("RegulatoryReportingCode(%q) = false, want true", c)
		}
	}
	for _, c := range []string{"", "1", "14 ", "014", "15", "99", "00", "AB"} {
		if RegulatoryReportingCode(c) {
			t.Errorf("RegulatoryReportingCode(%q) = true, want false", c)
		}
	}
}

func TestErrorTexts_Style(t *testing.T) {
	inputs := []string{
		"", "0", "A", " ", "no", "NO", "NO93", "86011117948", "8601111794", "1234567890",
		"NO9486011117947", "DNBANOKO", "dnbanokk", "\xff", "ÆØÅ", strings.Repeat("9", 100000),
		checkTenBBANPrefix + "0", "XX9386011117947", "NO0012345678920",
	}
	validators := map[string]func(string) error{
		"NorwegianBBAN": NorwegianBBAN, "IBAN": IBAN, "KID": KID, "BIC": BIC,
		"NorwegianIBAN": func(s string) error { _, err := NorwegianIBAN(s); return err },
	}
	for name, fn := range validators {
		for _, in := range inputs {
			if err := fn(in); err != nil {
				checkErrorStyle(t, name, in, err)
			}
		}
	}
}

func assertErr(t *testing.T, name string, fn func(string) error, in, wantErr string) {
	t.Helper()
	err := fn(in)
	if err == nil {
		t.Errorf("%s(%q) = nil, want %q", name, trunc(in), wantErr)
		return
	}
	if err.Error() != wantErr {
		t.Errorf("%s(%q) = %q, want %q", name, trunc(in), err.Error(), wantErr)
	}
	checkErrorStyle(t, name, in, err)
}

// checkErrorStyle checks the conventions for user-facing error texts: short,
// valid UTF-8, lower-case start, no trailing period.
func checkErrorStyle(t *testing.T, name, in string, err error) {
	t.Helper()
	msg := err.Error()
	r, _ := utf8.DecodeRuneInString(msg)
	switch {
	case msg == "":
		t.Errorf("%s(%q): empty error text", name, trunc(in))
	case !utf8.ValidString(msg):
		t.Errorf("%s(%q): error text is not valid UTF-8: %q", name, trunc(in), msg)
	case len(msg) > 200:
		t.Errorf("%s(%q): error text is %d bytes long", name, trunc(in), len(msg))
	case !unicode.IsLower(r):
		t.Errorf("%s(%q): error text %q does not start in lower case", name, trunc(in), msg)
	case strings.HasSuffix(msg, "."):
		t.Errorf("%s(%q): error text %q ends with a period", name, trunc(in), msg)
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func FuzzValidators(f *testing.F) {
	seeds := []string{
		"", "0", "NO", "NO9386011117947", "no9386011117947", "NO0012345678920",
		"DE89370400440532013000", "GB29NWBK60161331926819", "LC55HEMM000100010012001200023015",
		"1234567897", "1234567892", "60", "DNBANOKK", "DNBANOKKXXX", "DNBANOKO",
		"NOK", "JPY", "XDR", "NO", "SALA", "14", "\xff\xfe", "Ø", checkTenBBANPrefix + "0",
		"Ola\u00A0Nordmann", "\u3164", "\u2800\u3000", "\uFFFF", "\uE000", "👩\u200D💻",
	}
	for _, tc := range knownNorwegianAccounts {
		seeds = append(seeds, tc.bban, tc.iban, tc.bban[:10])
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		errs := map[string]error{
			"NorwegianBBAN": NorwegianBBAN(s),
			"IBAN":          IBAN(s),
			"KID":           KID(s),
			"BIC":           BIC(s),
			"Text":          Text(s),
			"Name":          Name(s),
			"Visible":       Visible(s),
		}
		for name, err := range errs {
			if err != nil {
				checkErrorStyle(t, name, s, err)
			}
		}
		if errs["Name"] == nil && (errs["Text"] != nil || errs["Visible"] != nil) {
			t.Errorf("Name(%q) = nil, but Text = %v and Visible = %v", s, errs["Text"], errs["Visible"])
		}
		shape := IsNorwegianBBANShape(s)
		_ = Currency(s)
		if n := MinorUnits(s); (n >= 0) != Currency(s) {
			t.Errorf("MinorUnits(%q) = %d but Currency = %v", s, n, Currency(s))
		}
		_ = Country(s)
		_ = PurposeCode(s)
		_ = RegulatoryReportingCode(s)

		if errs["NorwegianBBAN"] == nil && !shape {
			t.Errorf("NorwegianBBAN(%q) = nil but IsNorwegianBBANShape = false", s)
		}

		iban, err := NorwegianIBAN(s)
		if (err == nil) != (errs["NorwegianBBAN"] == nil) {
			t.Errorf("NorwegianIBAN(%q) error %v disagrees with NorwegianBBAN %v", s, err, errs["NorwegianBBAN"])
		}
		if err == nil {
			if e := IBAN(iban); e != nil {
				t.Errorf("IBAN(NorwegianIBAN(%q) = %q) = %v", s, iban, e)
			}
			if b, ok := BBANFromNorwegianIBAN(iban); !ok || b != s {
				t.Errorf("BBANFromNorwegianIBAN(%q) = %q, %v, want %q, true", iban, b, ok, s)
			}
		} else if iban != "" {
			t.Errorf("NorwegianIBAN(%q) = %q with error %v", s, iban, err)
		}

		if b, ok := BBANFromNorwegianIBAN(s); ok {
			if errs["IBAN"] != nil || !IsNorwegianBBANShape(b) || "NO"+s[2:4]+b != s {
				t.Errorf("BBANFromNorwegianIBAN(%q) = %q, true, but IBAN = %v", s, b, errs["IBAN"])
			}
			if NorwegianBBAN(b) == nil {
				if back, err := NorwegianIBAN(b); err != nil || back != s {
					t.Errorf("NorwegianIBAN(%q) = %q, %v, want %q", b, back, err, s)
				}
			}
		} else if b != "" {
			t.Errorf("BBANFromNorwegianIBAN(%q) = %q, false", s, b)
		}

		// For any 10 digits at most one last digit makes a valid BBAN, and
		// exactly one unless the MOD11 check digit would be 10.
		if len(s) >= 10 && allDigits(s[:10]) {
			valid := 0
			for d := byte('0'); d <= '9'; d++ {
				if NorwegianBBAN(s[:10]+string(d)) == nil {
					valid++
				}
			}
			if _, ok := mod11(s[:10]); (ok && valid != 1) || (!ok && valid != 0) {
				t.Errorf("%d valid BBANs start with %q (check digit exists: %v)", valid, s[:10], ok)
			}
		}
	})
}
