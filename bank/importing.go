package bank

import (
	"sync/atomic"
	"time"

	"sandbank/bank/apierr"
)

// ImportProgress is how far a scenario import is: records loaded of all.
// Of a scenario read as a stream, the total is estimated from the bytes
// read so far.
type ImportProgress struct {
	done    atomic.Int64
	total   int
	size    int64
	read    atomic.Int64
	Started time.Time
}

// NewImportProgress starts the progress of an import: of total records,
// or of a stream of size bytes, whose total is then estimated as it is
// read.
func NewImportProgress(total int, size int64) *ImportProgress {
	return &ImportProgress{total: total, size: size, Started: time.Now()}
}

// Loaded counts n more records loaded.
func (p *ImportProgress) Loaded(n int) { p.done.Add(int64(n)) }

// ReadBytes counts n more bytes of the stream read.
func (p *ImportProgress) ReadBytes(n int64) { p.read.Add(n) }

// ReadAgain starts counting the stream's bytes read anew, for a second
// reading of it.
func (p *ImportProgress) ReadAgain() { p.read.Store(0) }

// Size is the stream's size in bytes; 0 for a scenario held in memory.
func (p *ImportProgress) Size() int64 { return p.size }

// Done is how many records are loaded.
func (p *ImportProgress) Done() int { return int(p.done.Load()) }

// Total is how many records the scenario holds, or of a stream about how
// many: the records loaded so far scaled by the part of it read.
func (p *ImportProgress) Total() int {
	if p.size == 0 {
		return p.total
	}
	done, read := p.Done(), p.read.Load()
	if read == 0 {
		return done
	}
	return max(done, int(float64(done)*float64(p.size)/float64(read)))
}

// busy is the error of a write refused while the import runs: when to
// try again, estimated from the pace so far once a twentieth is done
// (before, 5 s), and never more than a minute, as a refusal is cheap.
func (p *ImportProgress) busy() *apierr.Error {
	done, total := p.Done(), max(p.Total(), 1)
	elapsed := time.Since(p.Started)
	wait := 5 * time.Second
	if done*20 >= total {
		wait = time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	}
	wait = min(max(wait.Round(time.Second), time.Second), time.Minute)
	e := apierr.Errorf(apierr.CodeSystemError, "a scenario import is running (%d%% done, %d of %d records, for %s); writes are refused until it ends: retry in %s", 100*done/total, done, total, elapsed.Round(time.Second), wait)
	e.RetryAfter = wait
	return e
}

// Importing returns how far the scenario import that runs is; false when
// none runs.
func (s *Ops) Importing() (*ImportProgress, bool) {
	p := s.importing.Load()
	return p, p != nil
}
