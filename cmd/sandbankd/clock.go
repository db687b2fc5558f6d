package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"sandbank/bank"
)

const clockUsage = `Show or move the sandbox clock (docs/SANDBOX-API.md 4.7).

Usage:
  sandbankd clock [--json]                 show it
  sandbankd clock set 2027-01-15T09:00:00+01:00
  sandbankd clock ahead 3d                 move it ahead: days, hours, minutes, seconds (3d, 12h, 1d12h, 90m)
  sandbankd clock back 1d                  move it back
  sandbankd clock real                     back to the real clock

Consent ages, SCA sessions, the 90-day rule, daily limits and batch runs
read this clock; moving it ahead makes the batch runs it passes over
before the command returns. Certificates are checked against the real
clock.

Flags:
`

// clockJSON reads the clock of GET and PUT /v1/sandbox/clock.
type clockJSON struct {
	Now           time.Time
	OffsetSeconds int64
}

func runClock(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := newOpCmd("clock", clockUsage, stdout, stderr)
	pos, err := o.parse(args)
	if err != nil {
		return err
	}
	var change func(now clockJSON) map[string]any
	switch {
	case len(pos) == 0:
	case len(pos) == 2 && pos[0] == "set":
		if _, err := time.Parse(time.RFC3339, pos[1]); err != nil {
			return o.usageErrorOf("set", "clock set %q: write an RFC 3339 date-time with an offset, e.g. 2027-01-15T09:00:00+01:00", pos[1])
		}
		change = func(clockJSON) map[string]any { return map[string]any{"now": pos[1]} }
	case len(pos) == 2 && (pos[0] == "ahead" || pos[0] == "back"):
		d, err := parseSpan(pos[1])
		if err != nil {
			return o.usageErrorOf(pos[0], "clock %s %s: %v", pos[0], pos[1], err)
		}
		if pos[0] == "back" {
			d = -d
		}
		change = func(now clockJSON) map[string]any { return map[string]any{"offsetSeconds": now.OffsetSeconds + d} }
	case len(pos) == 1 && pos[0] == "real":
		change = func(clockJSON) map[string]any { return map[string]any{"offsetSeconds": 0} }
	default:
		return o.usageError("give clock, clock set RFC3339, clock ahead 3d, clock back 3d or clock real")
	}
	c, err := o.connect(fileOrBank)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	var now clockJSON
	body, _, err := c.getJSON(ctx, o.stderr, "/v1/sandbox/clock", &now)
	if err != nil {
		return err
	}
	if change != nil {
		in, err := json.Marshal(change(now))
		if err != nil {
			return err
		}
		if body, _, err = c.callJSON(ctx, o.stderr, http.MethodPut, "/v1/sandbox/clock", in, &now); err != nil {
			return err
		}
	}
	if *o.json {
		return printJSON(o.stdout, body)
	}
	from := "the real clock"
	if now.OffsetSeconds != 0 {
		from = offsetText(now.OffsetSeconds) + " from the real clock"
	}
	_, err = fmt.Fprintf(o.stdout, "Sandbox clock: %s (%s, %s)\n", now.Now.In(bank.Oslo).Format(time.RFC3339), bank.Oslo, from)
	return err
}

// parseSpan reads a span of whole days, hours, minutes and seconds, such
// as 3d, 12h, 1d12h or 90m, in seconds.
func parseSpan(s string) (int64, error) {
	units := map[byte]int64{'d': 86400, 'h': 3600, 'm': 60, 's': 1}
	var total int64
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || units[rest[i]] == 0 {
			return 0, fmt.Errorf("write whole days, hours, minutes or seconds, e.g. 3d, 12h, 1d12h or 90m")
		}
		n, err := strconv.ParseInt(rest[:i], 10, 32)
		if err != nil {
			return 0, fmt.Errorf("%s is too large", rest[:i])
		}
		total += n * units[rest[i]]
		rest = rest[i+1:]
	}
	if total == 0 {
		return 0, fmt.Errorf("give a span longer than 0, e.g. 3d")
	}
	return total, nil
}
