package bank

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
)

// Kind tells what a resource id names. It is part of the id, so an account
// id can never be taken for a customer id.
type Kind byte

// The kinds of resource ids.
const (
	KindCustomer Kind = iota + 1
	KindAgreement
	KindEngagement
	KindAccount
	KindCardAccount
	KindTransaction
	KindAuthorisation
	KindGrant
	KindPayment
	KindBasket
	KindBatchRun
	KindConsent
)

// IDPrefix starts every resource id, in the bank's style.
const IDPrefix = "enc!!"

// FirstUserSeq is the first sequence number given to a resource created
// after the known state; the known state uses the numbers below it, so its
// ids are the same in every data file.
const FirstUserSeq = 1 << 20

// maxParent is the largest parent sequence an id can carry (7 bytes).
const maxParent = 1<<56 - 1

// idCipher turns the structured 16-byte key of a resource into the opaque
// bytes of its id. The key is fixed so that the ids of the known state are
// the same in every data file; the cipher makes ids opaque, not secret.
var idCipher = func() cipher.Block {
	sum := sha256.Sum256([]byte("sandbank resource ids v1"))
	b, err := aes.NewCipher(sum[:16])
	if err != nil {
		panic(err) // a 16-byte key never fails
	}
	return b
}()

// FormatID returns the id of a resource: "enc!!" and the URL-safe base64 of
// one AES block holding kind, parent (the owning resource's sequence, or 0)
// and the resource's own sequence number.
func FormatID(kind Kind, parent, seq uint64) string {
	var block [16]byte
	binary.BigEndian.PutUint64(block[0:8], parent&maxParent)
	block[0] = byte(kind)
	binary.BigEndian.PutUint64(block[8:16], seq)
	idCipher.Encrypt(block[:], block[:])
	return IDPrefix + base64.RawURLEncoding.EncodeToString(block[:])
}

// ParseID returns the parent and sequence of an id of the given kind. ok is
// false for anything that is not such an id.
func ParseID(kind Kind, id string) (parent, seq uint64, ok bool) {
	rest, found := strings.CutPrefix(id, IDPrefix)
	if !found || len(rest) != 22 {
		return 0, 0, false
	}
	var block [16]byte
	if n, err := base64.RawURLEncoding.Strict().Decode(block[:], []byte(rest)); err != nil || n != 16 {
		return 0, 0, false
	}
	idCipher.Decrypt(block[:], block[:])
	if Kind(block[0]) != kind {
		return 0, 0, false
	}
	block[0] = 0
	parent = binary.BigEndian.Uint64(block[0:8])
	seq = binary.BigEndian.Uint64(block[8:16])
	if seq == 0 {
		return 0, 0, false
	}
	return parent, seq, true
}

// SeqOf returns the sequence of a top-level resource id (one without a
// parent), ok false when id is not such an id of that kind.
func SeqOf(kind Kind, id string) (uint64, bool) {
	parent, seq, ok := ParseID(kind, id)
	if !ok || parent != 0 {
		return 0, false
	}
	return seq, true
}
