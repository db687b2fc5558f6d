package psd2api

import (
	"net/http"

	"sandbank/bank"
)

// Handlers of the operator's API under /v1/sandbox: the clock, batch runs
// and faults. They hold bank.Ops only.

// opsAPI answers the operator's routes.
type opsAPI struct {
	bank *bank.Ops
}

func (h *opsAPI) getClock(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, h.bank.Clock())
	return nil
}

func (h *opsAPI) putClock(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.ClockChange](r)
	if err != nil {
		return err
	}
	c, err := h.bank.SetClock(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// runBatch answers POST /v1/sandbox/batch-runs: a batch run now, with the
// number of payments that ended in each status.
func (h *opsAPI) runBatch(w http.ResponseWriter, r *http.Request) error {
	run, err := h.bank.RunBatch()
	if err != nil {
		return err
	}
	errs := run.Errors
	if errs == nil {
		errs = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"runId": run.ID, "time": run.Time, "counts": run.Counts, "errors": errs})
	return nil
}

func (h *opsAPI) getFaults(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, h.bank.Faults())
	return nil
}

func (h *opsAPI) putFaults(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[bank.Faults](r)
	if err != nil {
		return err
	}
	f, err := h.bank.SetFaults(in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}
