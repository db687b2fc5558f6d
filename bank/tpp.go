package bank

import (
	"errors"
	"fmt"
	"net/mail"

	"sandbank/bank/apierr"
	"sandbank/bank/validate"
)

// SetTPPContact registers the e-mail address a TPP wants operational
// notices at. Only the TPP itself (caller) may set its own. A personal
// webmail address is odd (spec 6 asks for a group or shared mailbox): it
// is taken with a warning, which it returns, and refused in strict mode.
func (s *PSD2) SetTPPContact(caller, tppID, email string) (TPPContact, []apierr.Message, error) {
	if err := ownTPP(caller, tppID); err != nil {
		return TPPContact{}, nil, err
	}
	v := s.violations()
	CheckEmail(&v, "email", email)
	if v.Empty() {
		if domain, personal := validate.PersonalMailbox(email); personal {
			v.Odd(apierr.CodeFormatError, "email", fmt.Sprintf("is at %s, a personal webmail service; the bank sends operational notices, such as major downtime, to this address and asks for a group or shared mailbox that outlives one person's job, e.g. psd2-ops@<your company's domain>. The bank takes it", domain))
		}
	}
	if err := v.Err(); err != nil {
		return TPPContact{}, nil, err
	}
	c := TPPContact{TPPID: tppID, Email: email}
	return c, v.Warnings(), s.update("set TPP contact", func(tx Tx) error { return tx.PutTPPContact(c) })
}

// TPPContact returns the contact a TPP registered.
func (s *PSD2) TPPContact(caller, tppID string) (TPPContact, error) {
	if err := ownTPP(caller, tppID); err != nil {
		return TPPContact{}, err
	}
	return read(s.core, "read TPP contact", func(tx Tx) (c TPPContact, err error) {
		c, err = tx.TPPContact(tppID)
		if errors.Is(err, ErrNotFound) {
			return c, apierr.Errorf(apierr.CodeResourceUnknown, "TPP %s has no contact information; register it with PUT", tppID)
		}
		return c, err
	})
}

func ownTPP(caller, tppID string) error {
	if caller != tppID {
		return apierr.Errorf(apierr.CodeForbidden, "the certificate identifies TPP %s; it may not act for TPP %s", caller, apierr.Clip(tppID))
	}
	return nil
}

// CheckEmail checks a TPP's contact address: a bare e-mail address.
func CheckEmail(v *apierr.Violations, path, email string) {
	switch a, err := mail.ParseAddress(email); {
	case email == "":
		v.Format(path, "is required")
	case !checkChars(v, path, email): // net/mail takes any character above ASCII
	case err != nil || a.Address != email || a.Name != "" || len(email) > 254:
		v.Format(path, "%q is not an e-mail address; write a bare address such as psd2-ops@example.com", apierr.Clip(email))
	}
}
