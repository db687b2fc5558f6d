package app

import (
	"context"
	"time"

	"sandbank/bank"
)

// maxSchedulerSleep bounds how long the scheduler sleeps, so that it looks
// at the clock again now and then even when nothing wakes it.
const maxSchedulerSleep = time.Hour

// runScheduler makes the batch runs as the sandbox clock passes their
// times, until ctx ends. A change of the settings (the clock, the batch
// times) wakes it to look again; a clock moved ahead has made its runs
// already (bank.SetClock catches up before it returns).
func (a *App) runScheduler(ctx context.Context) {
	wake := make(chan struct{}, 1)
	unsub := a.Bank.Ops.Subscribe(func(e bank.Event) {
		if e.Kind == bank.EventSettings {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	defer unsub()
	for {
		if runs, err := a.Bank.Ops.RunDueBatches(); err != nil {
			a.logger.Error("batch run", "err", err)
		} else {
			for _, r := range runs {
				a.logger.Info("batch run", "time", r.Time.Format(time.RFC3339), "trigger", r.Trigger, "counts", r.Counts)
			}
		}
		wait := maxSchedulerSleep
		if next, err := a.Bank.Ops.NextBatchRun(); err == nil {
			wait = min(wait, max(next.Sub(a.Bank.Ops.Now()), 0)+10*time.Millisecond)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		case <-wake:
			timer.Stop()
		}
	}
}
