package app

import (
	"net"
	"net/netip"
	"testing"
)

// A client address is an IPv4 address, or the /64 network of an IPv6
// one: a host that owns a /64 could otherwise open
// MaxConnectionsPerAddress connections from each of its addresses.
func TestClientAddress_IPv6CountsByNetwork(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.2:40000", "127.0.0.2/32"},
		{"[::ffff:192.0.2.7]:40000", "192.0.2.7/32"},
		{"[2001:db8:1:2:aaaa::1]:40000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:bbbb::9]:50000", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:40000", "fe80::/64"},
		{"[::1]:40000", "::/64"},
	} {
		tcp, err := net.ResolveTCPAddr("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := clientAddress(tcp); got != netip.MustParsePrefix(c.want) {
			t.Errorf("clientAddress(%s) = %s, want %s", c.addr, got, c.want)
		}
	}
}
