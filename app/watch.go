package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchFolder calls changed, debounced, whenever something in dir is
// created, written, renamed or removed, until ctx ends. It creates dir when
// it does not exist. fsnotify reports only later changes, so callers read
// the folder once themselves before they watch it.
func watchFolder(ctx context.Context, dir string, changed func()) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := w.Add(dir); err != nil {
		_ = w.Close()
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	go func() {
		defer func() { _ = w.Close() }()
		const settle = 150 * time.Millisecond
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case _, ok := <-w.Events:
				if !ok {
					return
				}
				timer.Reset(settle)
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			case <-timer.C:
				changed()
			}
		}
	}()
	return nil
}
