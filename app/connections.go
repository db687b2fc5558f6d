package app

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of the connections of each listener. A connection over a limit is
// accepted and then closed at once, or makes room by closing another, so
// that the operating system's queue of connections waiting to be accepted
// never fills (fairListener).
const (
	// MaxConnections is the most connections a listener holds open. At
	// the limit, a new connection closes the one that has been idle
	// (in keep-alive, between requests) the longest; when none is idle,
	// it closes the connection busy the longest of the client address
	// that holds the most, if that address holds at least two more than
	// the new connection's address; else the new connection is closed.
	MaxConnections = 256
	// MaxConnectionsPerAddress is the most connections one client address
	// holds open on a listener; an IPv6 client's address is its /64
	// network, which one host may own whole. Connections in the middle of
	// a request count too: a slow header or body, a TLS handshake. At the
	// limit, a new connection from the address closes that address's
	// longest-idle connection, or is closed at once when none is idle.
	// It is half of MaxConnections, so that the other half is always left
	// to other clients.
	//
	// Behind a reverse proxy or a Kubernetes ingress, every client has the
	// proxy's address: the proxy may keep 128 connections open to the
	// bank, and past that its own longest-idle one makes room (the proxy
	// opens a new one, as after IdleTimeout), so it keeps working; only
	// while all 128 are in the middle of a request is a further one
	// closed at once. Limit each client's connections at the proxy.
	MaxConnectionsPerAddress = MaxConnections / 2
)

// fairListener accepts a listener's connections and keeps them within
// MaxConnections, and each client address's within
// MaxConnectionsPerAddress. It always accepts, so that no connection waits
// in the operating system's queue, and closes at once a connection it
// cannot keep. The http.Server that serves it reports each connection's
// state to trackConnState, which tells idle connections from busy ones.
type fairListener struct {
	net.Listener
	logger *slog.Logger

	// clock orders events: it counts the connections' admissions, turns
	// to busy and writes. A busy connection's since is the clock of its
	// admission or last turn to busy; an idle one's, of its last write
	// (of its last response), which begins before the client can have
	// that response and send anything more, while the server may tell
	// that the connection is idle only later. So the smallest since has
	// been busy, or idle, the longest.
	clock atomic.Uint64

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	byAddr map[netip.Prefix]int // the open connections of each client address
	warned time.Time            // the last warning of a closed connection
}

// newFairListener wraps ln; it warns on logger when it closes a new
// connection, at most once a minute.
func newFairListener(ln net.Listener, logger *slog.Logger) *fairListener {
	return &fairListener{Listener: ln, logger: logger, conns: map[*trackedConn]struct{}{}, byAddr: map[netip.Prefix]int{}}
}

// trackedConn is a connection a fairListener holds open.
type trackedConn struct {
	net.Conn
	l     *fairListener
	addr  netip.Prefix  // clientAddress
	wrote atomic.Uint64 // l.clock at the start of the last write
	// idle and since are guarded by l.mu.
	idle  bool
	since uint64
}

// Accept returns the next connection the listener keeps; it closes the
// others meanwhile.
func (l *fairListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if c := l.admit(conn); c != nil {
			return c, nil
		}
	}
}

// admit keeps conn, closing another connection when that makes room for
// it, or closes conn and returns nil.
func (l *fairListener) admit(conn net.Conn) *trackedConn {
	c := &trackedConn{Conn: conn, l: l, addr: clientAddress(conn.RemoteAddr())}
	l.mu.Lock()
	victim, keep := l.makeRoom(c.addr)
	if victim != nil {
		l.remove(victim)
	}
	if keep {
		c.since = l.clock.Add(1)
		l.conns[c] = struct{}{}
		l.byAddr[c.addr]++
	}
	held, total := l.byAddr[c.addr], len(l.conns)
	warn := !keep && time.Since(l.warned) >= time.Minute
	if warn {
		l.warned = time.Now()
	}
	l.mu.Unlock()

	if victim != nil {
		_ = victim.Conn.Close() // the connection itself, under any TLS: no alert to wait on
	}
	if keep {
		return c
	}
	_ = conn.Close()
	if warn {
		l.logger.Warn("a new connection was closed at once: its client address, or the listener, holds all the connections it may, none of them idle (the next such closings this minute are not logged); a client that keeps many slow requests open, or a proxy in front of the bank, may be the cause",
			"client", conn.RemoteAddr().String(), "heldByAddress", held, "maxPerAddress", MaxConnectionsPerAddress, "held", total, "max", MaxConnections)
	}
	return nil
}

// makeRoom decides on a new connection from addr: whether to keep it, and
// which connection to close to make room, if any. l.mu is held.
func (l *fairListener) makeRoom(addr netip.Prefix) (victim *trackedConn, keep bool) {
	mine := l.byAddr[addr]
	if mine >= MaxConnectionsPerAddress {
		victim = l.oldest(func(c *trackedConn) bool { return c.idle && c.addr == addr })
		return victim, victim != nil
	}
	if len(l.conns) < MaxConnections {
		return nil, true
	}
	if victim = l.oldest(func(c *trackedConn) bool { return c.idle }); victim != nil {
		return victim, true
	}
	most := 0
	for _, n := range l.byAddr {
		most = max(most, n)
	}
	if most <= mine+1 {
		return nil, false
	}
	return l.oldest(func(c *trackedConn) bool { return l.byAddr[c.addr] == most }), true
}

// oldest returns the connection with the smallest since among those that
// match, or nil. l.mu is held.
func (l *fairListener) oldest(match func(*trackedConn) bool) *trackedConn {
	var found *trackedConn
	for c := range l.conns {
		if match(c) && (found == nil || c.since < found.since) {
			found = c
		}
	}
	return found
}

// remove forgets c; it is closed or about to be. l.mu is held.
func (l *fairListener) remove(c *trackedConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.byAddr[c.addr]--; l.byAddr[c.addr] == 0 {
		delete(l.byAddr, c.addr)
	}
}

// Write notes when it began, before a byte can reach the client, and
// writes to the connection.
func (c *trackedConn) Write(p []byte) (int, error) {
	c.wrote.Store(c.l.clock.Add(1))
	return c.Conn.Write(p)
}

// Close closes the connection and frees its place.
func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// trackConnState is the http.Server's ConnState of fair listeners: it
// notes when a connection turns idle (a keep-alive connection between
// requests) and when busy again (StateActive, StateHijacked). A connection
// leaves its listener when it is closed (trackedConn.Close).
func trackConnState(conn net.Conn, state http.ConnState) {
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	c, ok := conn.(*trackedConn)
	if !ok {
		return
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	switch idle := state == http.StateIdle; {
	case idle && !c.idle:
		c.idle, c.since = true, c.wrote.Load()
	case !idle && c.idle:
		c.idle, c.since = false, c.l.clock.Add(1)
	}
}

// clientAddress is the client address of a connection from addr that
// MaxConnectionsPerAddress counts: its IPv4 address, or the /64 network
// of its IPv6 address, since a single host may own a whole /64.
func clientAddress(addr net.Addr) netip.Prefix {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}
	}
	ip := tcp.AddrPort().Addr().Unmap().WithZone("")
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits) // bits is within the address's length
	return p
}
