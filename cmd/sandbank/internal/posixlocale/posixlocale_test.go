package posixlocale

import "testing"

func TestIsC(t *testing.T) {
	for locale, want := range map[string]bool{
		"C.UTF-8": true, "C.utf8": true, "POSIX.UTF-8": true, "C@euro": true, "C.UTF-8@x": true,
		"C": false, "POSIX": false, "": false, "C.": false, "en_US.UTF-8": false, "nb_NO.UTF-8": false,
		"Ca.UTF-8": false, "c.UTF-8": false, ".UTF-8": false,
	} {
		if got := isC(locale); got != want {
			t.Errorf("isC(%q) = %v, want %v", locale, got, want)
		}
	}
}

func TestLocale_FirstSetWins(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "C.UTF-8")
	if got := messagesLocale(); got != "C.UTF-8" {
		t.Fatalf("LANG only: %q", got)
	}
	t.Setenv("LC_MESSAGES", "nb_NO.UTF-8")
	if got := messagesLocale(); got != "nb_NO.UTF-8" {
		t.Fatalf("LC_MESSAGES over LANG: %q", got)
	}
	t.Setenv("LC_ALL", "POSIX.UTF-8")
	if got := messagesLocale(); got != "POSIX.UTF-8" {
		t.Fatalf("LC_ALL over both: %q", got)
	}
}
