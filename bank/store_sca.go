package bank

import (
	"strings"
	"time"
)

// The records the store keeps for SCA: authorisations, consents and the
// grants they give, SCA sessions and the PSU ids given to TPPs. They are stored as their
// JSON; storage/testdata/schema holds their stored form, so a renamed tag
// fails a test.

// Kinds of authorisation (SCA process).
const (
	// AuthConsent grants account access: POST /v1/consents,
	// POST /v1/bank-offered-consents, and the scaRedirect of a 401.
	AuthConsent = "consent"
	// AuthUsers identifies the PSU only (GET /v1/users), for a TPP that
	// initiates payments and needs a PSU-ID; it grants no account access.
	AuthUsers = "users"
	// AuthPayment approves one payment: at its creation, or through
	// POST .../authorisations.
	AuthPayment = "payment"
	// AuthBasket approves every payment of a signing basket that awaits
	// approval.
	AuthBasket = "basket"
)

// SCA statuses (spec 2.3).
const (
	ScaReceived      = "RECEIVED"
	ScaIdentified    = "PSU_IDENTIFIED"
	ScaAuthenticated = "PSU_AUTHENTICATED"
	ScaFinalised     = "FINALISED"
	ScaFailed        = "FAILED"
	ScaExempted      = "EXEMPTED"
)

// ContextPrivate is the context a PSU acts in for themselves; the other
// contexts are corporate agreements' ids.
const ContextPrivate = "PRIVATE"

// Authorisation is one SCA process: the PSU identifies, chooses a context
// and accounts, and approves or rejects, on the SCA page or through the
// automated-SCA endpoint.
type Authorisation struct {
	ID                string    `json:"id"`
	TPPID             string    `json:"tppId"`
	TPPName           string    `json:"tppName"`
	Kind              string    `json:"kind"`
	Status            string    `json:"status"`
	Created           time.Time `json:"created"`
	RedirectURI       string    `json:"redirectUri"`
	SessionID         string    `json:"sessionId"`
	RedirectPreferred bool      `json:"redirectPreferred"`
	// Secret is part of the SCA page's address: only the TPP that started
	// the authorisation gets it (in scaRedirect), so an id alone opens no
	// page. PagePath gives the address.
	Secret string `json:"secret,omitempty"`
	// Token is the authorisation's own form token: a form posted for one
	// authorisation cannot drive another. Cookie is the value of the
	// cookie the page sets; a form post must carry both.
	Token  string `json:"token,omitempty"`
	Cookie string `json:"cookie,omitempty"`
	// Bound is set by the first visit of the open page, which alone got
	// the cookie: from then on the page shows its form only to a browser
	// that sends the cookie. A record stored without it is unbound.
	Bound      bool     `json:"bound,omitempty"`
	Attempts   int      `json:"attempts"`
	CustomerID string   `json:"customerId,omitempty"`
	Context    string   `json:"context,omitempty"`
	Accounts   []string `json:"accounts,omitempty"`
	FailCode   string   `json:"failCode,omitempty"`
	// FailMessage says why it failed, for the PSU and the TPP.
	FailMessage string `json:"failMessage,omitempty"`
	// Redirect is where the PSU was sent when the authorisation finished.
	Redirect string    `json:"redirect,omitempty"`
	Finished time.Time `json:"finished"`
	// PaymentIDs are the payments a payment or basket authorisation
	// approves; BasketID names the basket.
	PaymentIDs []string `json:"paymentIds,omitempty"`
	BasketID   string   `json:"basketId,omitempty"`
	// ConsentID is the consent an AuthConsent authorisation is the SCA of.
	ConsentID string `json:"consentId,omitempty"`
	// PSURequired, when set, is the only customer who may identify: the
	// PSU a payment was started for.
	PSURequired string `json:"psuRequired,omitempty"`
}

// Expires is when an unfinished authorisation fails.
func (a Authorisation) Expires() time.Time { return a.Created.Add(ScaLifetime) }

// PagePath is the SCA page's path: /sca/{id}/{secret}.
func (a Authorisation) PagePath() string { return "/sca/" + a.ID + "/" + a.Secret }

// CookieName is the name of the cookie the authorisation's page sets.
func (a Authorisation) CookieName() string {
	return "sandbank-sca-" + strings.TrimPrefix(a.ID, IDPrefix)
}

// Open reports whether the authorisation has not finished.
func (a Authorisation) Open() bool {
	return a.Status != ScaFinalised && a.Status != ScaFailed && a.Status != ScaExempted
}

// Grant is what a consent gives: a TPP may read these accounts of a PSU,
// in one context, for GrantLifetime from Created. A TPP holds one grant per
// PSU and context; a newer consent replaces it.
type Grant struct {
	ID         string    `json:"id"`
	TPPID      string    `json:"tppId"`
	CustomerID string    `json:"customerId"`
	Context    string    `json:"context"`
	Accounts   []string  `json:"accounts"`
	Created    time.Time `json:"created"`
	// ConsentID is the consent whose SCA gave the grant.
	ConsentID string `json:"consentId,omitempty"`
}

// Expires is when the grant ends.
func (g Grant) Expires() time.Time { return g.Created.Add(GrantLifetime) }

// Session is a TPP's SCA session for a PSU: a completed SCA under
// SessionID, valid until Expires.
type Session struct {
	TPPID      string    `json:"tppId"`
	CustomerID string    `json:"customerId"`
	SessionID  string    `json:"sessionId"`
	Expires    time.Time `json:"expires"`
}

// PSU maps a PSU-ID (or, with AgreementID, a PSU-Corporate-ID) that the
// bank gave a TPP back to the customer.
type PSU struct {
	ID          string `json:"id"`
	TPPID       string `json:"tppId"`
	CustomerID  string `json:"customerId"`
	AgreementID string `json:"agreementId,omitempty"`
}

// Consent statuses (Berlin Group consentStatus).
const (
	ConsentReceived   = "received"        // its SCA has not finished
	ConsentRejected   = "rejected"        // its SCA failed or the PSU rejected it
	ConsentValid      = "valid"           // it gives its grant
	ConsentExpired    = "expired"         // its grant is older than GrantLifetime
	ConsentTerminated = "terminatedByTpp" // the TPP deleted it, or a newer consent of the same PSU and context replaced it
	ConsentRevoked    = "revokedByPsu"    // the operator revoked its grant (the PSU, in a real bank)
)

// Consent is a TPP's consent resource (POST /v1/consents): its SCA and,
// once the PSU approved, the grant it gave. Consents are kept for
// ConsentsKept after they are created.
type Consent struct {
	ID      string    `json:"id"`
	TPPID   string    `json:"tppId"`
	Created time.Time `json:"created"`
	// AuthorisationIDs are the SCAs of the consent, the first started with
	// it.
	AuthorisationIDs []string `json:"authorisationIds"`
	// Status is the stored status; ConsentStatus adds expiry.
	Status string `json:"status"`
	// GrantID, CustomerID, Context and Accounts are the grant it gave, once
	// valid.
	GrantID    string   `json:"grantId,omitempty"`
	CustomerID string   `json:"customerId,omitempty"`
	Context    string   `json:"context,omitempty"`
	Accounts   []string `json:"accounts,omitempty"`
	// Granted is when its SCA finished; Ended when it stopped being valid.
	Granted time.Time `json:"granted"`
	Ended   time.Time `json:"ended"`
}

// ValidUntil is the last moment a valid consent gives its grant.
func (c Consent) ValidUntil() time.Time { return c.Granted.Add(GrantLifetime) }

// ConsentStatus is the consent's status at now: a valid consent past
// GrantLifetime is expired.
func (c Consent) ConsentStatus(now time.Time) string {
	if c.Status == ConsentValid && now.After(c.ValidUntil()) {
		return ConsentExpired
	}
	return c.Status
}
