package bank

// PaymentsNow reads the payments ids names in one read, each with
// fundsAvailable as of now as Ops.Payment gives it, for a test that reads
// every payment after every step.
func PaymentsNow(s *Bank, ids []string) ([]Payment, error) {
	return read(s.Ops.core, "read payments", func(tx Tx) ([]Payment, error) {
		l := newLedger(tx)
		out := make([]Payment, len(ids))
		for i, id := range ids {
			p, err := tx.Payment(id)
			if err != nil {
				return nil, found(err, "payment", id)
			}
			if err := fundsNow(l, &p); err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	})
}
