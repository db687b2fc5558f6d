package bank

import (
	"errors"
	"net/mail"

	"sandbank/bank/apierr"
)

// SetTPPContact registers the e-mail address a TPP wants operational
// notices at. Only the TPP itself (caller) may set its own.
func (s *PSD2) SetTPPContact(caller, tppID, email string) (TPPContact, error) {
	if err := ownTPP(caller, tppID); err != nil {
		return TPPContact{}, err
	}
	var v apierr.Violations
	CheckEmail(&v, "email", email)
	if err := v.Err(); err != nil {
		return TPPContact{}, err
	}
	c := TPPContact{TPPID: tppID, Email: email}
	return c, s.update("set TPP contact", func(tx Tx) error { return tx.PutTPPContact(c) })
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
