package psd2api

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"sandbank/assets"
	"sandbank/bank"
	"sandbank/bank/apierr"
)

// The SCA page (docs/ACCOUNT-INFORMATION.md 3): unsigned HTML forms that POST back to
// /sca/{id}. html/template escapes everything the page prints.

var (
	scaTemplate = template.Must(template.ParseFS(assets.SCA, "sca/page.html"))
	scaCSS      = must(fs.ReadFile(assets.SCA, "sca/sandbank.css"))
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// maxSCAForm bounds an SCA page form post.
const maxSCAForm = 64 << 10

// maxHints is how many sandbox customers the page lists.
const maxHints = 25

// scaPageData is what page.html prints.
type scaPageData struct {
	Title, TPP, Purpose, Problem, Step, Action, Token string
	Hints                                             []bank.Customer
	MoreHints                                         int // customers not listed
	Customer                                          bank.Customer
	Contexts, Accounts                                []bank.Option
	Payments                                          []bank.PaymentSummary
	Outcome                                           string
	// Redirect is the TPP's redirect URI, checked when SCA started.
	Redirect template.URL
	// ID, Status and Expires are the footer; empty on an error page.
	ID, Status, Expires string
}

var stepTitles = map[string]string{
	bank.StepIdentify: "Log in to Sandbank",
	bank.StepApp:      "Approve in the Sandbank app",
	bank.StepContext:  "Choose who you act for",
	bank.StepConsent:  "Share account information",
	bank.StepConfirm:  "Confirm who you are",
	bank.StepPayment:  "Approve payment",
}

// scaPage serves GET and POST /sca/{id}/{secret}. A POST that finishes the
// authorisation, or a visit after its hour, sends the PSU on with 303. The
// first GET binds the page to its browser and sets the cookie that every
// form post must carry with the form token (SameSite=Strict: a form posted
// from another site is refused); a GET without that cookie later gets 409,
// a page without a form that says the approval is open in another browser.
func (h *psd2API) scaPage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret := r.PathValue("id"), r.PathValue("secret")
		var cookie string
		if c, err := r.Cookie((bank.Authorisation{ID: id}).CookieName()); err == nil {
			cookie = c.Value
		}
		keepSecret(r, secret, cookie) // the log keeps none of them (redact.go)
		var view bank.SCAView
		var err error
		if r.Method == http.MethodPost {
			// The form is read whole first, so that the request log keeps
			// it, its token redacted as the other secrets are: the PSU's
			// steps (national id, context, accounts, decision) are what a
			// replay of the traffic completes the SCA with (bank/replay).
			form, rerr := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSCAForm))
			stateOf(r).body = form
			r.Body = io.NopCloser(bytes.NewReader(form))
			if perr := r.ParseForm(); rerr != nil || perr != nil {
				h.scaProblem(w, r, apierr.Errorf(apierr.CodeBadRequest, "the form could not be read; go back and try again"))
				return
			}
			in := bank.SCAInput{
				Token: r.PostForm.Get("token"), NationalID: r.PostForm.Get("nationalId"), Context: r.PostForm.Get("context"),
				Accounts: r.PostForm["accounts"], Decision: r.PostForm.Get("decision"), Cookie: cookie,
			}
			keepSecret(r, in.Token)
			view, err = h.bank.SCAStep(id, secret, in)
		} else {
			view, err = h.bank.SCAPage(id, secret, cookie)
		}
		if err != nil {
			h.scaProblem(w, r, err)
			return
		}
		keepSecret(r, view.Token, view.Cookie)
		setPageHeaders(w.Header(), view.RedirectURI)
		if r.Method == http.MethodGet && view.Open() && view.Cookie != "" {
			http.SetCookie(w, &http.Cookie{
				Name: view.CookieName(), Value: view.Cookie, Path: "/sca/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
			})
		}
		if view.Ended && view.Redirect != "" {
			w.Header().Set("Location", view.Redirect)
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		status := http.StatusOK
		if view.Step == bank.StepElsewhere {
			status = http.StatusConflict
		}
		renderSCA(w, status, pageData(view))
	})
}

// pageData turns an authorisation's view into what the page prints.
func pageData(v bank.SCAView) scaPageData {
	d := scaPageData{
		Title: stepTitles[v.Step], TPP: v.TPPName, Problem: v.Problem, Step: v.Step,
		Action: v.PagePath(), Token: v.Token,
		Hints: v.Hints, Customer: v.Customer, Contexts: v.Contexts, Accounts: v.Accounts, Payments: v.Payments,
		ID: v.ID, Status: v.Status, Expires: v.Expires().In(bank.Oslo).Format("2006-01-02 15:04 MST"),
	}
	if len(d.Hints) > maxHints {
		d.Hints, d.MoreHints = d.Hints[:maxHints], len(d.Hints)-maxHints
	}
	switch v.Kind {
	case bank.AuthUsers:
		d.Purpose = "wants to know who you are, to make payments for you."
	case bank.AuthPayment:
		d.Purpose = "asks you to approve a payment."
	case bank.AuthBasket:
		d.Purpose = fmt.Sprintf("asks you to approve %d payments at once.", len(v.PaymentIDs))
		d.Title = "Approve payments"
	default:
		d.Purpose = "wants to read your account information."
	}
	switch v.Step {
	case bank.StepElsewhere:
		d.Title = "Open in another browser"
		d.Outcome = "This approval is open in another browser, which opened its link first; only that browser can go on with it. If that was not you, or you cannot go back to it, return to " + v.TPPName + " and start again: it will start a new approval."
		return d
	case bank.StepDone:
	default:
		return d
	}
	d.Token = ""
	switch {
	case v.Status == bank.ScaFinalised:
		d.Title, d.Outcome = "Done", "You approved the request. You can close this page and return to "+v.TPPName+"."
	default:
		d.Title, d.Outcome = "Not completed", outcomeOf(v.FailCode, v.FailMessage)
		d.Redirect = template.URL(v.Redirect) // a failure's redirect carries nothing about the PSU
	}
	return d
}

func outcomeOf(code, message string) string {
	switch code {
	case apierr.CodePaymentFailed:
		return "The payment was not approved: " + message + "."
	case apierr.CodeSCAExpired:
		return "The login was not finished within an hour, so it has expired."
	case apierr.CodePSUCredentialsInvalid:
		return "You could not be identified in three attempts."
	}
	return "You rejected the request. Nothing was shared."
}

// scaProblem shows an error on the SCA page: an unknown authorisation, a
// form of another authorisation, an unreadable post.
func (h *psd2API) scaProblem(w http.ResponseWriter, r *http.Request, err error) {
	e, status, ok := errorStatus(err)
	if !ok {
		h.fail(w, r, err) // logged with its id; the PSU sees only the id
		return
	}
	st := stateOf(r)
	st.errCode = e.Code
	setPageHeaders(w.Header(), "")
	setRetryAfter(w.Header(), e)
	renderSCA(w, status, scaPageData{Title: "Something went wrong", Problem: e.Message, Step: bank.StepDone, Outcome: "Return to the app you came from and start again."})
}

// renderSCA writes the page.
func renderSCA(w http.ResponseWriter, status int, d scaPageData) {
	var b bytes.Buffer
	if err := scaTemplate.Execute(&b, d); err != nil {
		panic(err) // the template and its data are ours: a bug; ServeHTTP answers 500
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// setPageHeaders locks the page down: no scripts, no framing, forms only
// to the page itself and the TPP's redirect URI, no referrer.
func setPageHeaders(h http.Header, redirectURI string) {
	formAction := "'self'"
	if u, err := url.Parse(redirectURI); err == nil && u.Scheme != "" {
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			if hostPattern.MatchString(u.Host) {
				formAction += " " + u.Scheme + "://" + u.Host
			}
		default:
			formAction += " " + u.Scheme + ":"
		}
	}
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action "+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// scaStyle serves the SCA page's style sheet.
func scaStyle(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(scaCSS)
}

func (h *psd2API) automatedSCA(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.AutoSCA](r)
	if err != nil {
		return err
	}
	redirect, err := h.bank.AutomatedSCA(callerTPP(r), r.PathValue("authorisationId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"redirect": redirect})
	return nil
}
