package bank

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// Durations of the SCA rules (docs/ACCOUNT-INFORMATION.md and docs/PAYMENTS.md).
const (
	ScaLifetime      = time.Hour            // an authorisation must finish within it
	SessionLifetime  = time.Hour            // an SCA session under one TPP-Session-ID
	GrantLifetime    = 180 * 24 * time.Hour // a consent
	DetailsGrantAge  = 90 * 24 * time.Hour  // transaction details without the PSU present
	maxIdentifyTries = 3
	// HistoryDaysWithoutSCA is how many calendar days back transactions
	// may be read without an SCA session.
	HistoryDaysWithoutSCA = 90
)

// psuNamespace makes PSU ids: a UUID derived from the TPP and the customer
// (and the agreement), so it is stable for them, differs between TPPs and
// says nothing about the customer.
var psuNamespace = uuid.MustParse("5d3c9a5e-7f0b-4c1e-9a51-5a4e6b2d8c10")

// PSUID is the PSU-ID a TPP gets for a customer.
func PSUID(tppID, customerID string) string {
	return uuid.NewSHA1(psuNamespace, []byte(tppID+"\x00"+customerID)).String()
}

// CorporateID is the PSU-Corporate-ID a TPP gets for a customer acting in
// an agreement.
func CorporateID(tppID, customerID, agreementID string) string {
	return uuid.NewSHA1(psuNamespace, []byte(tppID+"\x00"+customerID+"\x00"+agreementID)).String()
}

// SCARequest is what a signed request that starts SCA says.
type SCARequest struct {
	TPPID   string
	TPPName string // shown to the PSU; the TPP id when empty
	Kind    string // AuthConsent or AuthUsers
	// RedirectURI (TPP-Redirect-URI) is where the PSU goes afterwards.
	RedirectURI string
	SessionID   string // TPP-Session-ID
	// RedirectPreferred is false for TPP-Redirect-Preferred: false: the
	// page shows the mobile app's approval instead of the national-id form.
	RedirectPreferred bool
}

// StartSCA starts an authorisation for a TPP: the PSU will be sent to the
// SCA page and, when it finishes, to the request's redirect URI. A consent's
// SCA starts with its consent resource (StartConsent).
func (s *PSD2) StartSCA(r SCARequest) (Authorisation, error) {
	if r.Kind == AuthConsent {
		_, a, err := s.StartConsent(r)
		return a, err
	}
	return change(s.core, "start SCA", func(tx Tx) (a Authorisation, err error) {
		if a, err = s.newAuthorisation(tx, r, s.Now()); err != nil {
			return a, err
		}
		return a, tx.PutAuthorisation(a)
	}, Event{Kind: EventConsents})
}

// CheckSCARequest checks the redirect headers of a request that starts
// SCA, and the TPP's name the SCA page will show: a name that validate.Name
// refuses (a bidi control that would reorder the page, a private-use
// character, a name that shows nothing) is CERTIFICATE_INVALID, since it
// comes from the certificate. Without a name the page shows the TPP's id.
func CheckSCARequest(r SCARequest) error {
	if err := CheckRedirectURI(r.RedirectURI); err != nil {
		return err
	}
	var v apierr.Violations
	CheckText(&v, "TPP-Session-ID", r.SessionID, 1, 200)
	if err := validate.Name(r.TPPName); err != nil && r.TPPName != "" {
		v.Add(apierr.CodeCertificateInvalid, "TPP-Signature-Certificate", "the TPP's name in the certificate's subject (O, else CN) "+err.Error())
	}
	return v.Err()
}

// newAuthorisation checks a request that starts SCA and returns its
// authorisation, created now, with an id, not yet stored. Old
// authorisations are pruned.
func (s *core) newAuthorisation(tx Tx, r SCARequest, now time.Time) (Authorisation, error) {
	if err := CheckSCARequest(r); err != nil {
		return Authorisation{}, err
	}
	if r.TPPName == "" {
		r.TPPName = r.TPPID
	}
	a := Authorisation{
		TPPID: r.TPPID, TPPName: r.TPPName, Kind: r.Kind, Status: ScaReceived, Created: now,
		RedirectURI: r.RedirectURI, SessionID: r.SessionID, RedirectPreferred: r.RedirectPreferred,
		Secret: NewToken(), Token: NewToken(), Cookie: NewToken(),
	}
	if err := pruneAuthorisations(tx, a.Created); err != nil {
		return a, err
	}
	seq, err := tx.NextSeq(KindAuthorisation)
	if err != nil {
		return a, err
	}
	a.ID = FormatID(KindAuthorisation, 0, seq)
	return a, nil
}

// CheckRedirectURI accepts an absolute URI the PSU's browser may be sent
// to: http, https or an app's own scheme, without control characters. An
// app's scheme is a reversed domain name (RFC 8252 7.1, e.g. no.tpp.app),
// so that no URI opens a browser's or an operating system's own handler
// (javascript:, data:, file:, ms-msdt: and the like).
func CheckRedirectURI(raw string) error {
	const path = "TPP-Redirect-URI"
	if raw == "" {
		return apierr.PathError(apierr.CodeHeaderRequired, path, "TPP-Redirect-URI is required: the bank sends the PSU there after SCA")
	}
	if len(raw) > 2048 || strings.IndexFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return apierr.PathError(apierr.CodeFormatError, path, "must be a URI of at most 2048 characters without control characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Fragment != "" {
		return apierr.PathError(apierr.CodeFormatError, path, fmt.Sprintf("%q is not an absolute URI without a fragment, e.g. https://tpp.example/callback", apierr.Clip(raw)))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return apierr.PathError(apierr.CodeFormatError, path, "an http(s) URI needs a host")
		}
	default:
		if !strings.Contains(u.Scheme, ".") {
			return apierr.PathError(apierr.CodeFormatError, path, fmt.Sprintf("the scheme %s is not allowed; use https, http or your app's own scheme named after your domain, e.g. no.tpp.app://sca-done", u.Scheme))
		}
	}
	return nil
}

// NewToken returns 144 random bits, URL-safe.
func NewToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// SCA page steps.
const (
	StepIdentify = "identify" // the PSU types the national id
	StepApp      = "app"      // the mobile app's biometric approval (TPP-Redirect-Preferred: false)
	StepContext  = "context"  // private or one of the corporate agreements
	StepConsent  = "consent"  // accounts to grant, then approve or reject
	StepConfirm  = "confirm"  // approve or reject (no accounts: PSU identification)
	StepPayment  = "payment"  // the payments to approve, then approve or reject
	StepDone     = "done"     // finished; Redirect says where the PSU went
	// StepElsewhere is what a browser without the page's cookie sees of a
	// page that another browser opened first: no form.
	StepElsewhere = "elsewhere"
)

// Option is a choice the SCA page offers. Label holds the words of its
// label, e.g. an account's name, IBAN and "(NOK)": the page shows each in
// its own <bdi>, so that a name cannot reorder the number beside it.
type Option struct {
	Value   string
	Label   []string
	Checked bool
}

// PaymentSummary is what the SCA page shows of a payment to approve; the
// payments' subject fills it. The page shows each name and each account
// in its own <bdi>, so that a name cannot reorder the account beside it.
type PaymentSummary struct {
	ID     string
	Kind   string // e.g. "Domestic payment", "Standing order", "Bulk payment of 12"
	Amount string // with its currency
	// Creditors is the number of creditors of a bulk payment, whose
	// creditor name and account are its first item's; 1 otherwise.
	Creditors       int
	CreditorName    string
	CreditorAccount string // IBAN, else BBAN
	DebtorName      string // the name of the account paid from
	DebtorAccount   string // its IBAN
	Date            string // execution date, or the standing order's schedule
	Remittance      string
	Note            string // a fee, or that a second approver is awaited
}

// SCAView is what the SCA page shows of an authorisation at its step.
type SCAView struct {
	Authorisation
	Step     string
	Hints    []Customer // the sandbox customers, whose numbers are the national ids
	Customer Customer   // once identified
	Contexts []Option
	Accounts []Option
	Payments []PaymentSummary
	Problem  string // why the last step failed, for the PSU
	// Ended is true when this very call finished the authorisation: the
	// PSU is sent to Redirect now.
	Ended bool
}

// SCAInput is one step's answer: a form post of the SCA page or the
// automated-SCA body. A form post carries the page's form token and the
// value of the cookie the page set.
type SCAInput struct {
	Token      string
	Cookie     string
	NationalID string
	Context    string
	Accounts   []string
	Decision   string // approve or reject
}

// AutoSCA is the body of POST /v1/sandbox/sca/{authorisationId}.
type AutoSCA struct {
	NationalID string   `json:"nationalId"`
	Decision   string   `json:"decision"`
	Context    string   `json:"context,omitempty"`
	Accounts   []string `json:"accounts,omitempty"`
}

// scaSubject is what an authorisation of one kind is for. The SCA steps
// are the same for every kind: identify, choose a context, decide. A
// subject says which contexts the PSU may choose, what the decision step
// shows, and what approval, rejection and failure do. The SCA steps call
// subjects only through this interface; each kind registers its subject
// with the core (see New), so SCA knows nothing of what it approves.
type scaSubject interface {
	// contexts lists the contexts the identified PSU may act in.
	contexts(tx Tx, a Authorisation) ([]Option, error)
	// noContext says how the authorisation fails when the PSU may act in
	// no context; an empty code leaves the PSU at the context step.
	noContext(tx Tx, a Authorisation) (code, message string, err error)
	// identifyOnly reports whether identifying the PSU is all there is to
	// decide, in the private context.
	identifyOnly() bool
	// show fills the decision step of the page: its step and what it
	// lists.
	show(tx Tx, a Authorisation, v *SCAView) error
	// approve applies the PSU's approval.
	approve(tx Tx, a *Authorisation, in SCAInput) (approval, error)
	// reject applies the PSU's rejection and says how the authorisation
	// fails.
	reject(tx Tx, a *Authorisation) (code, message string, err error)
	// abandon undoes what waits on an authorisation that failed.
	abandon(tx Tx, a Authorisation, message string) error
}

// approval is what a subject made of the PSU's approval: a problem the PSU
// can mend at the same step, a failure of the authorisation (failCode and
// failMessage), or, with neither, success.
type approval struct {
	problem               string
	failCode, failMessage string
}

// subject returns the subject of an authorisation's kind.
func (s *core) subject(a Authorisation) scaSubject {
	if sub, ok := s.subjects[a.Kind]; ok {
		return sub
	}
	return identification{} // a kind this version does not know: identify only
}

// SCAPage returns the page of an authorisation at its address (its id and
// its secret) for a browser that sent cookie, the value of the page's
// cookie, or "". The first visit of an open page binds the authorisation to
// its browser: the view carries the cookie for it to set. A later visit
// without that cookie gets StepElsewhere, with no token and no cookie. An
// authorisation older than ScaLifetime fails here (SCA_EXPIRED) the first
// time it is seen.
func (s *PSD2) SCAPage(id, secret, cookie string) (SCAView, error) {
	var view SCAView
	err := s.readAuthorisation("read SCA", func(tx Tx, mayWrite bool) error {
		if err := pageOpens(tx, id, secret); err != nil {
			return err
		}
		a, expired, err := s.loadAuthorisation(tx, id, mayWrite)
		if err != nil {
			return err
		}
		switch {
		case a.Open() && !a.Bound:
			if !mayWrite {
				return errMustWrite
			}
			a.Bound = true
			if err := tx.PutAuthorisation(a); err != nil {
				return err
			}
		case a.Open() && subtle.ConstantTimeCompare([]byte(cookie), []byte(a.Cookie)) != 1:
			view = elsewhere(a)
			return nil
		}
		view, err = s.viewOf(tx, a, "")
		view.Ended = expired
		return err
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments})
	return view, err
}

// elsewhere is the page of an open authorisation for a browser other than
// the one it is bound to: what the TPP asks for, but neither the PSU, nor
// what is to be approved, nor the form token and the cookie.
func elsewhere(a Authorisation) SCAView {
	return SCAView{Authorisation: Authorisation{
		ID: a.ID, TPPID: a.TPPID, TPPName: a.TPPName, Kind: a.Kind, Status: a.Status, Created: a.Created,
		RedirectURI: a.RedirectURI, Bound: a.Bound, PaymentIDs: a.PaymentIDs, BasketID: a.BasketID,
	}, Step: StepElsewhere}
}

// pageOpens checks the secret of an SCA page's address: a wrong or missing
// one is SCA_NOT_FOUND, as an unknown id is, so an id alone tells nothing.
func pageOpens(tx Tx, id, secret string) error {
	a, err := tx.Authorisation(id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil || a.Secret == "" || subtle.ConstantTimeCompare([]byte(secret), []byte(a.Secret)) != 1 {
		return apierr.Errorf(apierr.CodeSCANotFound, "authorisation %s does not exist; start SCA again", apierr.Clip(id))
	}
	return nil
}

// errMustWrite stops a read that must write: it found an open
// authorisation past its hour, which fails, or the first visit of an SCA
// page, which binds the authorisation to its browser.
var errMustWrite = errors.New("the read must write the authorisation")

// readAuthorisation runs fn in a read transaction, and again in a write
// transaction (announcing events) only when fn returns errMustWrite: when
// an authorisation it reads is past its hour and must be failed, or an SCA
// page is visited for the first time. Reading a status or a page writes
// nothing otherwise.
func (s *core) readAuthorisation(what string, fn func(tx Tx, mayWrite bool) error, events ...Event) error {
	err := s.view(what, func(tx Tx) error { return fn(tx, false) })
	if !errors.Is(err, errMustWrite) {
		return err
	}
	return s.write(what, func(tx Tx) error { return fn(tx, true) }, events...)
}

// loadAuthorisation reads an authorisation, failing it (SCA_EXPIRED) when
// it is past its hour; expired reports that it failed just now. In a read
// transaction (mayWrite false) such an authorisation stops the read with
// errMustWrite.
func (s *core) loadAuthorisation(tx Tx, id string, mayWrite bool) (a Authorisation, expired bool, err error) {
	a, err = tx.Authorisation(id)
	if errors.Is(err, ErrNotFound) {
		return a, false, apierr.Errorf(apierr.CodeSCANotFound, "authorisation %s does not exist; start SCA again", apierr.Clip(id))
	}
	if err != nil {
		return a, false, err
	}
	if a.Open() && s.Now().After(a.Expires()) {
		if !mayWrite {
			return a, false, errMustWrite
		}
		return a, true, s.fail(tx, &a, apierr.CodeSCAExpired, "the SCA was not finished within an hour")
	}
	return a, false, nil
}

// SCAStep applies one step of the SCA page, posted to its address (id and
// secret): the answer to the step the authorisation is at. A form without
// the authorisation's form token and the page's cookie, which only the
// browser the page is bound to holds, is refused and changes nothing.
func (s *PSD2) SCAStep(id, secret string, in SCAInput) (SCAView, error) {
	return change(s.core, "SCA step", func(tx Tx) (view SCAView, err error) {
		if err := pageOpens(tx, id, secret); err != nil {
			return view, err
		}
		a, expired, err := s.loadAuthorisation(tx, id, true)
		if err != nil {
			return view, err
		}
		if !a.Open() { // finished before, or expired just now
			view, err = s.viewOf(tx, a, "")
			view.Ended = expired
			return view, err
		}
		if subtle.ConstantTimeCompare([]byte(in.Token), []byte(a.Token)) != 1 || subtle.ConstantTimeCompare([]byte(in.Cookie), []byte(a.Cookie)) != 1 {
			return view, apierr.Errorf(apierr.CodeBadRequest, "this form does not belong to authorisation %s, or your browser did not send the page's cookie: only the browser that opened the approval first can go on with it; go on there, or return to the app you came from and start again", apierr.Clip(id))
		}
		problem, err := s.step(tx, &a, in)
		if err != nil {
			return view, err
		}
		view, err = s.viewOf(tx, a, problem)
		view.Ended = !a.Open()
		return view, err
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments}, Event{Kind: EventAccounts}, Event{Kind: EventTransactions})
}

// AutomatedSCA runs every step of an authorisation at once for a TPP's test
// suite and returns where the PSU would be sent. Accounts default to every
// account offered; the context may be left out when there is one.
func (s *PSD2) AutomatedSCA(tppID, id string, in AutoSCA) (string, error) {
	return change(s.core, "automated SCA", func(tx Tx) (redirect string, err error) {
		a, _, err := s.loadAuthorisation(tx, id, true)
		if err != nil {
			return redirect, err
		}
		if a.TPPID != tppID {
			return redirect, apierr.Errorf(apierr.CodeSCANotFound, "authorisation %s does not exist; start SCA again", apierr.Clip(id))
		}
		if a.FailCode == apierr.CodeSCAExpired {
			redirect = a.Redirect // the PSU would be sent back with SCA_EXPIRED
			return redirect, nil
		}
		if !a.Open() {
			return redirect, apierr.Errorf(apierr.CodeConflict, "authorisation %s has finished (%s); start a new one", id, a.Status)
		}
		var v apierr.Violations
		if in.Decision != "approve" && in.Decision != "reject" {
			v.Format("decision", "must be approve or reject")
		}
		if in.NationalID == "" {
			v.Format("nationalId", "is required: the customerNumber of a sandbox customer")
		}
		if err := v.Err(); err != nil {
			return redirect, err
		}
		input := SCAInput{Token: a.Token, NationalID: in.NationalID, Context: in.Context, Accounts: in.Accounts, Decision: in.Decision}
		for a.Open() {
			view, err := s.viewOf(tx, a, "")
			if err != nil {
				return redirect, err
			}
			switch view.Step {
			case StepContext:
				if input.Context == "" {
					return redirect, apierr.PathError(apierr.CodeFormatError, "context", "this PSU acts in more than one context; give one of "+optionValues(view.Contexts))
				}
			case StepConsent:
				if input.Accounts == nil {
					for _, o := range view.Accounts {
						input.Accounts = append(input.Accounts, o.Value)
					}
				}
			}
			problem, err := s.step(tx, &a, input)
			if err != nil {
				return redirect, err
			}
			if problem != "" && a.Open() {
				return redirect, apierr.PathError(stepCode(view.Step), stepPath(view.Step), problem)
			}
		}
		redirect = a.Redirect
		return redirect, nil
	}, Event{Kind: EventConsents}, Event{Kind: EventPayments}, Event{Kind: EventAccounts}, Event{Kind: EventTransactions})
}

func stepCode(step string) string {
	if step == StepIdentify || step == StepApp {
		return apierr.CodePSUCredentialsInvalid
	}
	return apierr.CodeFormatError
}

func stepPath(step string) string {
	switch step {
	case StepIdentify, StepApp:
		return "nationalId"
	case StepContext:
		return "context"
	}
	return "accounts"
}

func optionValues(list []Option) string {
	values := make([]string, len(list))
	for i, o := range list {
		values[i] = o.Value
	}
	return strings.Join(values, ", ")
}

// step applies the answer to the authorisation's current step. problem is
// what the PSU did wrong, shown on the page; the authorisation stays at
// its step.
func (s *core) step(tx Tx, a *Authorisation, in SCAInput) (problem string, err error) {
	switch a.Status {
	case ScaReceived:
		c, err := tx.CustomerByNumber(strings.TrimSpace(in.NationalID))
		if err == nil && a.PSURequired != "" && c.ID != a.PSURequired {
			err = ErrNotFound // the payment was started for another PSU
		}
		if err != nil {
			a.Attempts++
			if a.Attempts >= maxIdentifyTries {
				return "", s.fail(tx, a, apierr.CodePSUCredentialsInvalid, "the PSU could not be identified in three attempts")
			}
			if err := tx.PutAuthorisation(*a); err != nil {
				return "", err
			}
			return fmt.Sprintf("No sandbox customer has the national id %q. %s left.", apierr.Clip(in.NationalID), attempts(maxIdentifyTries-a.Attempts)), nil
		}
		a.CustomerID, a.Status = c.ID, ScaIdentified
		return "", s.afterIdentify(tx, a)
	case ScaIdentified:
		contexts, err := s.subject(*a).contexts(tx, *a)
		if err != nil {
			return "", err
		}
		if !hasOption(contexts, in.Context) {
			return "Choose one of the contexts shown.", nil
		}
		a.Context, a.Status = in.Context, ScaAuthenticated
		return "", tx.PutAuthorisation(*a)
	case ScaAuthenticated:
		subject := s.subject(*a)
		switch in.Decision {
		case "reject":
			code, message, err := subject.reject(tx, a)
			if err != nil {
				return "", err
			}
			return "", s.fail(tx, a, code, message)
		case "approve":
		default:
			return "Approve or reject.", nil
		}
		out, err := subject.approve(tx, a, in)
		switch {
		case err != nil || out.problem != "":
			return out.problem, err
		case out.failCode != "":
			return "", s.fail(tx, a, out.failCode, out.failMessage)
		}
		return "", s.finish(tx, a)
	}
	return "", apierr.Errorf(apierr.CodeConflict, "authorisation %s has finished (%s); start a new one", a.ID, a.Status)
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

func hasOption(list []Option, value string) bool {
	for _, o := range list {
		if o.Value == value {
			return true
		}
	}
	return false
}

// afterIdentify moves past the context choice when there is nothing to
// choose. A PSU who may act in no context fails at once when the subject
// says why.
func (s *core) afterIdentify(tx Tx, a *Authorisation) error {
	subject := s.subject(*a)
	contexts, err := subject.contexts(tx, *a)
	if err != nil {
		return err
	}
	if len(contexts) == 0 {
		if code, message, err := subject.noContext(tx, *a); err != nil || code != "" {
			if err != nil {
				return err
			}
			return s.fail(tx, a, code, message)
		}
	}
	if len(contexts) == 1 {
		a.Context, a.Status = contexts[0].Value, ScaAuthenticated
	}
	if a.Context == "" && subject.identifyOnly() {
		a.Context, a.Status = ContextPrivate, ScaAuthenticated
	}
	return tx.PutAuthorisation(*a)
}

// viewOf builds the page of an authorisation.
func (s *core) viewOf(tx Tx, a Authorisation, problem string) (SCAView, error) {
	v := SCAView{Authorisation: a, Problem: problem}
	if a.CustomerID != "" {
		c, err := tx.Customer(a.CustomerID)
		if err != nil {
			return v, err
		}
		v.Customer = c
	}
	switch {
	case !a.Open():
		v.Step = StepDone
	case a.Status == ScaReceived:
		v.Step = StepIdentify
		if !a.RedirectPreferred {
			v.Step = StepApp
		}
		hints, err := tx.Customers()
		if err != nil {
			return v, err
		}
		v.Hints = hints
	case a.Status == ScaIdentified:
		v.Step = StepContext
		contexts, err := s.subject(a).contexts(tx, a)
		if err != nil {
			return v, err
		}
		v.Contexts = contexts
	default:
		if err := s.subject(a).show(tx, a, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

// scaFailedStatus is the status a failed SCA's redirect names: every code
// an authorisation fails with (PSU_CREDENTIALS_INVALID, SCA_INVALID,
// SCA_EXPIRED, PAYMENT_FAILED) is a 401 of docs/SANDBOX-API.md 1.4.
const scaFailedStatus = 401

// fail ends an authorisation without success and works out where the PSU
// goes: the TPP's redirect URI with system, status, code and message.
func (s *core) fail(tx Tx, a *Authorisation, code, message string) error {
	a.Status, a.FailCode, a.FailMessage, a.Finished = ScaFailed, code, message, s.Now()
	if err := s.subject(*a).abandon(tx, *a, message); err != nil {
		return err
	}
	q := url.Values{}
	q.Set("system", "sandbank")
	q.Set("status", fmt.Sprint(scaFailedStatus))
	q.Set("code", code)
	q.Set("message", message)
	a.Redirect = withQuery(a.RedirectURI, q)
	return tx.PutAuthorisation(*a)
}

// finish ends an authorisation with success: the grant (for a consent), the
// SCA session and the PSU ids, then the redirect with psu-id,
// tpp-session-id, context and, for a corporate context, psu-corporate-id.
func (s *core) finish(tx Tx, a *Authorisation) error {
	now := s.Now()
	a.Status, a.Finished = ScaFinalised, now
	psu := PSU{ID: PSUID(a.TPPID, a.CustomerID), TPPID: a.TPPID, CustomerID: a.CustomerID}
	if err := tx.PutPSU(psu); err != nil {
		return err
	}
	q := url.Values{}
	q.Set("psu-id", psu.ID)
	q.Set("tpp-session-id", a.SessionID)
	q.Set("context", "PRIVATE")
	if a.Context != ContextPrivate {
		corp := PSU{ID: CorporateID(a.TPPID, a.CustomerID, a.Context), TPPID: a.TPPID, CustomerID: a.CustomerID, AgreementID: a.Context}
		if err := tx.PutPSU(corp); err != nil {
			return err
		}
		q.Set("context", "CORPORATE")
		q.Set("psu-corporate-id", corp.ID)
	}
	// A completed SCA under a new TPP-Session-ID ends the old session.
	if err := tx.PutSession(Session{TPPID: a.TPPID, CustomerID: a.CustomerID, SessionID: a.SessionID, Expires: now.Add(SessionLifetime)}); err != nil {
		return err
	}
	a.Redirect = withQuery(a.RedirectURI, q)
	return tx.PutAuthorisation(*a)
}

// withQuery adds parameters to a URI, keeping its own but for those of
// the same names, which the bank's values replace.
func withQuery(raw string, add url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, vs := range add {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}
