// Package hub hands values to subscribers: the bank's change events, the
// request log's new entries and the scenario folder's listings all reach
// the desktop window through one.
package hub

import "sync"

// Hub calls its subscribers with every value published. Its zero value is
// ready to use, and it is safe for concurrent use.
type Hub[T any] struct {
	mu   sync.Mutex
	next int
	subs map[int]func(T)
}

// Subscribe calls fn with every value published from now on, until cancel
// is called; calling cancel again does nothing. fn runs on the goroutine
// that publishes and must not block.
func (h *Hub[T]) Subscribe(fn func(T)) (cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[int]func(T){}
	}
	id := h.next
	h.next++
	h.subs[id] = fn
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.subs, id)
	}
}

// Publish calls every subscriber with each value, in order. The
// subscribers are those of the moment Publish starts; they run outside the
// hub's lock, so one may subscribe or cancel while it is called.
func (h *Hub[T]) Publish(values ...T) {
	h.mu.Lock()
	subs := make([]func(T), 0, len(h.subs))
	for _, fn := range h.subs {
		subs = append(subs, fn)
	}
	h.mu.Unlock()
	for _, v := range values {
		for _, fn := range subs {
			fn(v)
		}
	}
}
