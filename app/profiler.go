package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"
)

// CheckProfilerAddr checks the value of --pprof: empty (no profiler), or
// a loopback host and a port, like 127.0.0.1:6060, [::1]:6060 or
// localhost:6060 (port 0: one the kernel chooses). The Go profiler shows
// what the process holds and runs, so it is never served beyond
// loopback.
func CheckProfilerAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%w: --pprof takes a loopback host and a port, like 127.0.0.1:6060, not %q", ErrUsage, addr)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("%w: --pprof serves the Go profiler, which shows what the bank holds in memory, on loopback only: give 127.0.0.1:PORT, [::1]:PORT or localhost:PORT, not %q; to profile a bank on another machine, reach its loopback through ssh -L", ErrUsage, addr)
	}
	return nil
}

// loopbackHost reports whether a host name is a loopback address or
// localhost.
func loopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost"
}

// profiler serves net/http/pprof on a listener of its own.
type profiler struct {
	url  string // http://HOST:PORT/debug/pprof/
	srv  *http.Server
	done chan error
}

// startProfiler binds addr (checked by CheckProfilerAddr) and serves the
// Go profiler there until stop. Its listener answers only requests whose
// Host is a loopback name, so that a web page that rebinds its DNS name to
// 127.0.0.1 cannot read it from the tester's browser.
func startProfiler(addr string, logger *slog.Logger) (*profiler, error) {
	if err := CheckProfilerAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ListenError{Listener: "profiler", Flag: "--pprof", Addr: addr, Err: err}
	}
	// A name such as localhost may resolve beyond loopback.
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("%w: --pprof %s bound %s, which is not a loopback address; give 127.0.0.1:PORT or [::1]:PORT", ErrUsage, addr, ln.Addr())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	p := &profiler{url: "http://" + ln.Addr().String() + "/debug/pprof/", done: make(chan error, 1), srv: &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			if !loopbackHost(strings.Trim(host, "[]")) {
				http.Error(w, "the profiler answers only to a loopback Host (127.0.0.1, [::1] or localhost)", http.StatusForbidden)
				return
			}
			mux.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}}
	go func() {
		err := p.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		p.done <- err
	}()
	return p, nil
}

// stop closes the profiler's listener and its connections (a CPU profile
// being taken ends there); nil is no profiler.
func (p *profiler) stop() error {
	if p == nil {
		return nil
	}
	err := p.srv.Close()
	return errors.Join(err, <-p.done)
}

// ProfilerURL is where the Go profiler of --pprof serves
// (http://127.0.0.1:PORT/debug/pprof/); empty without one.
func (a *App) ProfilerURL() string {
	if a.profiler == nil {
		return ""
	}
	return a.profiler.url
}
