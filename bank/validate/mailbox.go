package validate

import (
	"slices"
	"strings"
)

// Personal webmail services, the list docs/SANDBOX-API.md 2.9 gives. The
// bank sends its operational notices (major downtime and the like) to a
// TPP's contact address, and asks for a group or shared mailbox there, not
// a personal one (spec 6).
var (
	// WebmailBrands are webmail services known by the first label of
	// their domain under any country's domain: gmail.com, hotmail.no,
	// yahoo.co.uk, gmx.de, yandex.ru, proton.me.
	WebmailBrands = []string{
		"aol", "gmail", "gmx", "googlemail", "hotmail", "icloud", "live", "msn",
		"outlook", "proton", "protonmail", "yahoo", "yandex", "ymail",
	}
	// WebmailDomains are webmail domains matched whole.
	WebmailDomains = []string{
		"163.com", "bk.ru", "fastmail.com", "inbox.ru", "list.ru", "mac.com", "mail.com",
		"mail.ru", "me.com", "online.no", "pm.me", "qq.com", "t-online.de", "tuta.io",
		"tutanota.com", "web.de", "ya.ru", "zoho.com",
	}
)

// PersonalMailbox reports whether an e-mail address is at a personal
// webmail service, and returns its domain in lower case. A brand of
// WebmailBrands matches as the whole name under a country's domain, the
// brand and one label (gmail.com, live.no) or the brand, co or com and a
// country (yahoo.co.uk, hotmail.com.br); a subdomain of another
// organisation that happens to hold the brand (gmail.example.com) does
// not.
func PersonalMailbox(address string) (string, bool) {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return "", false
	}
	domain := strings.TrimSuffix(strings.ToLower(address[at+1:]), ".")
	if slices.Contains(WebmailDomains, domain) {
		return domain, true
	}
	labels := strings.Split(domain, ".")
	switch {
	case len(labels) == 2 && isTLD(labels[1]):
	case len(labels) == 3 && (labels[1] == "co" || labels[1] == "com") && isTLD(labels[2]):
	default:
		return domain, false
	}
	return domain, slices.Contains(WebmailBrands, labels[0])
}

// isTLD reports whether a label has the form of a top-level domain: two
// or more letters.
func isTLD(label string) bool {
	if len(label) < 2 {
		return false
	}
	for i := 0; i < len(label); i++ {
		if !isLower(label[i]) {
			return false
		}
	}
	return true
}
