package hub_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"sandbank/bank/hub"
)

// A zero Hub takes subscribers and hands each of them every value, in
// order, until they cancel.
func TestHub_ZeroValueDeliversInOrderUntilCancel(t *testing.T) {
	var h hub.Hub[int]
	h.Publish(0) // no subscribers yet: nothing to do
	var a, b []int
	cancelA := h.Subscribe(func(v int) { a = append(a, v) })
	h.Subscribe(func(v int) { b = append(b, v) })
	h.Publish(1, 2)
	cancelA()
	h.Publish(3)
	if !slices.Equal(a, []int{1, 2}) || !slices.Equal(b, []int{1, 2, 3}) {
		t.Fatalf("a got %v, b got %v", a, b)
	}
}

// Calling cancel twice is harmless: it does not remove another subscriber.
func TestHub_CancelTwice(t *testing.T) {
	var h hub.Hub[string]
	cancel := h.Subscribe(func(string) { t.Error("a cancelled subscriber was called") })
	cancel()
	var got []string
	h.Subscribe(func(v string) { got = append(got, v) })
	cancel()
	h.Publish("x")
	if !slices.Equal(got, []string{"x"}) {
		t.Fatalf("the other subscriber got %v", got)
	}
}

// A subscriber may subscribe and cancel while it is called: the hub's lock
// is not held. One added during a Publish gets the next value, not that
// one.
func TestHub_SubscribeAndCancelDuringPublish(t *testing.T) {
	var h hub.Hub[int]
	var late []int
	var cancelSelf func()
	calls := 0
	cancelSelf = h.Subscribe(func(v int) {
		calls++
		h.Subscribe(func(v int) { late = append(late, v) })
		cancelSelf()
	})
	h.Publish(1)
	h.Publish(2)
	if calls != 1 || !slices.Equal(late, []int{2}) {
		t.Fatalf("the first subscriber ran %d times; the one it added got %v", calls, late)
	}
}

// Subscribing, cancelling and publishing from many goroutines at once is
// safe (run with -race), and a subscriber that stays gets every value
// published after it subscribed.
func TestHub_Concurrent(t *testing.T) {
	var h hub.Hub[int]
	var steady atomic.Int64
	cancel := h.Subscribe(func(int) { steady.Add(1) })
	defer cancel()
	const goroutines, rounds = 8, 200
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range rounds {
				c := h.Subscribe(func(int) {})
				h.Publish(i)
				c()
				c()
			}
		})
	}
	wg.Wait()
	if got := steady.Load(); got != goroutines*rounds {
		t.Fatalf("the steady subscriber got %d values, want %d", got, goroutines*rounds)
	}
}
