package validate

import (
	"os"
	"strings"
	"testing"
)

func TestPersonalMailbox(t *testing.T) {
	for _, c := range []struct {
		address, domain string
		personal        bool
	}{
		{"ola@gmail.com", "gmail.com", true},
		{"Ola@GMail.COM", "gmail.com", true},
		{"kari@hotmail.no", "hotmail.no", true},
		{"dev@yahoo.co.uk", "yahoo.co.uk", true},
		{"dev@hotmail.com.br", "hotmail.com.br", true},
		{"ops@proton.me", "proton.me", true},
		{"ops@pm.me", "pm.me", true},
		{"ops@mail.ru", "mail.ru", true},
		{"ops@gmx.de", "gmx.de", true},
		{"ops@yandex.com", "yandex.com", true},
		{"ops@online.no", "online.no", true},
		{"psd2-ops@tpp.example", "tpp.example", false},
		{"ops@gmail.example.com", "gmail.example.com", false}, // a company's subdomain
		{"ops@mail.example.no", "mail.example.no", false},
		{"ops@outlook.c0m", "outlook.c0m", false},
		{"ops@hotmail", "hotmail", false},
		{"no-at-sign", "", false},
		{"", "", false},
	} {
		domain, personal := PersonalMailbox(c.address)
		if domain != c.domain || personal != c.personal {
			t.Errorf("PersonalMailbox(%q) = %q, %v; want %q, %v", c.address, domain, personal, c.domain, c.personal)
		}
	}
}

// The list the reference gives is the list the bank matches.
func TestPersonalMailbox_DocumentedList(t *testing.T) {
	doc, err := os.ReadFile("../../docs/SANDBOX-API.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### 2.9 TPP contact")
	section, _, _ = strings.Cut(section, "### 2.10")
	for _, list := range []struct {
		name  string
		items []string
	}{{"WebmailBrands", WebmailBrands}, {"WebmailDomains", WebmailDomains}} {
		for _, item := range list.items {
			if !strings.Contains(section, "`"+item+"`") {
				t.Errorf("docs/SANDBOX-API.md 2.9 does not list %s's %q", list.name, item)
			}
		}
	}
}
