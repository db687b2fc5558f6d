package apptest

import (
	"runtime"
	"sync"
	"time"
)

// HeapWatch samples the heap of the test process while something runs,
// to show that it never holds what it streams: a test that starts one
// must not run in parallel with others, which would add their heap.
type HeapWatch struct {
	base uint64
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// WatchHeap collects garbage, notes the heap in use (runtime.MemStats
// HeapAlloc) as the base, and samples it every 2 ms until Stop.
func WatchHeap() *HeapWatch {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w := &HeapWatch{base: ms.HeapAlloc, peak: ms.HeapAlloc, stop: make(chan struct{})}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *HeapWatch) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.mu.Lock()
	w.peak = max(w.peak, ms.HeapAlloc)
	w.mu.Unlock()
}

// Stop ends the sampling, takes a last sample, and returns the base and
// the highest heap in use seen, garbage not collected yet included.
func (w *HeapWatch) Stop() (base, peak uint64) {
	close(w.stop)
	w.done.Wait()
	w.sample()
	return w.base, w.peak
}
