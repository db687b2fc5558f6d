package apptest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Browser is a PSU's browser without JavaScript: it loads the SCA page,
// reads its forms and posts them with the page's cookies, and does not
// follow redirects, so a test sees where the bank sends the PSU.
type Browser struct {
	b      *Bank
	client *http.Client
}

// Browser returns a new browser for the bank's SCA pages.
func (b *Bank) Browser() *Browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		b.TB.Fatal(err)
	}
	return &Browser{b: b, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Page is what the browser got: an HTML page with its forms, or a redirect
// (Location).
type Page struct {
	URL      string
	Status   int
	Header   http.Header
	Body     string
	Location string
	Forms    []Form
	// Text is the page's visible text, whitespace folded.
	Text string
}

// Form is one form of a page.
type Form struct {
	Action, Method string
	Fields         []Field
}

// Field is an input or a submit button of a form.
type Field struct {
	Tag, Name, Type, Value string
	Checked                bool
}

// Open loads a page.
func (br *Browser) Open(rawURL string) Page {
	br.b.TB.Helper()
	resp, err := br.client.Get(rawURL)
	if err != nil {
		br.b.TB.Fatalf("GET %s: %v", rawURL, err)
	}
	return br.read(rawURL, resp)
}

// Submit posts the page's only form. values sets fields by name: a text
// field's value, the radio button to pick, the check boxes to tick (all
// others are unticked) and, under the name of a submit button, the button
// to press. Fields not named keep what the page gave them. Values the form
// does not offer are sent as given, as a tampered form would.
func (br *Browser) Submit(p Page, values url.Values) Page {
	br.b.TB.Helper()
	if len(p.Forms) != 1 {
		br.b.TB.Fatalf("page %s has %d forms, want 1:\n%s", p.URL, len(p.Forms), p.Text)
	}
	f := p.Forms[0]
	post := url.Values{}
	for _, fl := range f.Fields {
		set, named := values[fl.Name]
		switch {
		case fl.Type == "submit":
			if named && slices.Contains(set, fl.Value) && !post.Has(fl.Name) {
				post.Set(fl.Name, fl.Value)
			}
		case fl.Type == "radio" || fl.Type == "checkbox":
			if named && !post.Has(fl.Name) {
				post[fl.Name] = set // as given, offered or not: a tampered form too
			} else if !named && fl.Checked {
				post.Add(fl.Name, fl.Value)
			}
		case named:
			post.Set(fl.Name, set[0])
		default:
			post.Add(fl.Name, fl.Value)
		}
	}
	// Values no field offers are sent too: a PSU's tampered form.
	for name, vs := range values {
		if !slices.ContainsFunc(f.Fields, func(fl Field) bool { return fl.Name == name }) {
			post[name] = vs
		}
	}
	base, err := url.Parse(p.URL)
	if err != nil {
		br.b.TB.Fatal(err)
	}
	action, err := base.Parse(f.Action)
	if err != nil {
		br.b.TB.Fatalf("form action %q: %v", f.Action, err)
	}
	return br.Post(action.String(), post)
}

// Cookies returns the cookies the browser would send to rawURL.
func (br *Browser) Cookies(rawURL string) []*http.Cookie {
	u, err := url.Parse(rawURL)
	if err != nil {
		br.b.TB.Fatalf("URL %q: %v", rawURL, err)
	}
	return br.client.Jar.Cookies(u)
}

// Post posts form values to a URL.
func (br *Browser) Post(rawURL string, form url.Values) Page {
	br.b.TB.Helper()
	resp, err := br.client.PostForm(rawURL, form)
	if err != nil {
		br.b.TB.Fatalf("POST %s: %v", rawURL, err)
	}
	return br.read(rawURL, resp)
}

func (br *Browser) read(rawURL string, resp *http.Response) Page {
	br.b.TB.Helper()
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		br.b.TB.Fatal(err)
	}
	br.b.checkContract(resp.Request, nil, resp.StatusCode, resp.Header, data)
	p := Page{URL: rawURL, Status: resp.StatusCode, Header: resp.Header, Body: string(data), Location: resp.Header.Get("Location")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		doc, err := html.Parse(strings.NewReader(p.Body))
		if err != nil {
			br.b.TB.Fatalf("parse %s: %v", rawURL, err)
		}
		p.Forms, p.Text = formsOf(doc), textOf(doc)
	}
	return p
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func formsOf(doc *html.Node) []Form {
	var forms []Form
	var walk func(n *html.Node, f *Form)
	walk = func(n *html.Node, f *Form) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "form":
				action, _ := attr(n, "action")
				method, _ := attr(n, "method")
				forms = append(forms, Form{Action: action, Method: strings.ToUpper(method)})
				f = &forms[len(forms)-1]
			case "input", "button":
				if f != nil {
					fl := Field{Tag: n.Data}
					fl.Name, _ = attr(n, "name")
					fl.Type, _ = attr(n, "type")
					fl.Value, _ = attr(n, "value")
					_, fl.Checked = attr(n, "checked")
					if n.Data == "button" && fl.Type == "" {
						fl.Type = "submit"
					}
					if fl.Type == "" {
						fl.Type = "text"
					}
					f.Fields = append(f.Fields, fl)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, f)
		}
	}
	walk(doc, nil)
	return forms
}

func textOf(doc *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "style" || n.Data == "script" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(b.String()), " ")
}

// Redirect is where the SCA page sent the PSU in the end, and its query.
type Redirect struct {
	URL   *url.URL
	Query url.Values
}

// StartSCA sends a signed request that starts SCA (POST /v1/consents when
// path is empty) with TPP-Redirect-URI and TPP-Session-ID and returns the
// scaRedirect URL.
func (b *Bank) StartSCA(tpp *TPP, method, path, redirectURI, sessionID string, headers ...string) string {
	b.TB.Helper()
	headers = append([]string{"TPP-Redirect-URI: " + redirectURI, "TPP-Session-ID: " + sessionID}, headers...)
	r := b.Do(tpp, method, path, nil, headers...)
	if r.Status != http.StatusCreated {
		b.TB.Fatalf("%s %s: status %d: %s", method, path, r.Status, r.Body)
	}
	var started struct {
		Links map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	r.JSON(b.TB, &started)
	href := started.Links["scaRedirect"].Href
	if href == "" {
		b.TB.Fatalf("%s %s: no scaRedirect: %s", method, path, r.Body)
	}
	return href
}

// CompleteSCA goes through the SCA page at scaURL as the PSU with
// nationalID, in a new browser: picks context when asked, ticks accounts
// (nil: as offered) and presses decision. It fails the test unless the
// bank ends with a 303. The page binds to the first browser that opens it,
// so a page another browser opened is completed with Browser.CompleteSCA.
func (b *Bank) CompleteSCA(scaURL, nationalID, context string, accounts []string, decision string) Redirect {
	b.TB.Helper()
	return b.Browser().CompleteSCA(scaURL, nationalID, context, accounts, decision)
}

// CompleteSCA goes through the SCA page at scaURL as Bank.CompleteSCA
// does, in this browser: the one the page is bound to, or a browser that
// opens it first.
func (br *Browser) CompleteSCA(scaURL, nationalID, context string, accounts []string, decision string) Redirect {
	b := br.b
	b.TB.Helper()
	p := br.Open(scaURL)
	for range 5 {
		if p.Status == http.StatusSeeOther {
			u, err := url.Parse(p.Location)
			if err != nil {
				b.TB.Fatalf("redirect %q: %v", p.Location, err)
			}
			return Redirect{URL: u, Query: u.Query()}
		}
		if p.Status != http.StatusOK || len(p.Forms) != 1 {
			b.TB.Fatalf("SCA page %s: status %d, %d forms: %s", p.URL, p.Status, len(p.Forms), p.Text)
		}
		v := url.Values{}
		switch {
		case hasField(p, "nationalId"):
			v.Set("nationalId", nationalID)
		case hasField(p, "context"):
			v.Set("context", context)
		default:
			if hasField(p, "accounts") && accounts != nil {
				v["accounts"] = accounts
			}
			v.Set("decision", decision)
		}
		p = br.Submit(p, v)
	}
	b.TB.Fatalf("the SCA page did not finish: %s", p.Text)
	return Redirect{}
}

func hasField(p Page, name string) bool {
	return len(p.Forms) == 1 && slices.ContainsFunc(p.Forms[0].Fields, func(f Field) bool { return f.Name == name && f.Type != "submit" })
}

// Consent gets a consent for tpp as the PSU with nationalID through the SCA
// page and returns the redirect's query: psu-id, tpp-session-id, context
// and psu-corporate-id.
func (b *Bank) Consent(tpp *TPP, nationalID, context string, accounts []string) url.Values {
	b.TB.Helper()
	href := b.StartSCA(tpp, http.MethodPost, "/v1/consents", "https://tpp.example/cb", "session-"+nationalID)
	r := b.CompleteSCA(href, nationalID, context, accounts, "approve")
	if r.Query.Get("psu-id") == "" {
		b.TB.Fatalf("consent failed: %s", r.URL)
	}
	return r.Query
}
