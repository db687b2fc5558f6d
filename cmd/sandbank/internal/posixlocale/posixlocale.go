// Package posixlocale lets Fyne read the C and POSIX locales quietly.
//
// Fyne's lang package reads the locale from LC_ALL, LC_MESSAGES or LANG
// when it is initialised, and logs a "Fyne error" for C.UTF-8 (Debian's
// default) and POSIX.UTF-8: "C" is no language tag. This package's init
// sets LANGUAGE=en when the locale is one of those and LANGUAGE is empty;
// Fyne then reads "en", the language it would fall back to anyway. C
// programs ignore LANGUAGE in the C locale, so the processes the app
// starts are unaffected.
//
// Import it for its init, which must run before Fyne's lang package reads
// the locale. Go initialises packages in import path order whenever their
// imports allow: this package imports only os and strings, which
// text/template needs too, so it is initialised before text/template, and
// so before fyne.io/fyne/v2/lang, which imports text/template.
package posixlocale

import (
	"os"
	"strings"
)

func init() {
	if os.Getenv("LANGUAGE") == "" && isC(messagesLocale()) {
		_ = os.Setenv("LANGUAGE", "en")
	}
}

// messagesLocale returns the locale of messages: the first of LC_ALL,
// LC_MESSAGES and LANG that is set.
func messagesLocale() string {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(name); v != "" {
			return v
		}
	}
	return ""
}

// isC reports whether locale is the C or POSIX locale with a codeset or
// modifier (C.UTF-8, POSIX.UTF-8, C@euro), which Fyne cannot parse. The
// bare C and POSIX Fyne reads as English already.
func isC(locale string) bool {
	i := strings.IndexAny(locale, ".@")
	return i > 0 && i < len(locale)-1 && (locale[:i] == "C" || locale[:i] == "POSIX")
}
