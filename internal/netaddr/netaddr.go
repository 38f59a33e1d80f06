// Package netaddr holds checks of network addresses that more than one
// package makes.
package netaddr

import (
	"net"
	"strings"
)

// IsLoopback reports whether addr (a host, or host:port, an IPv6 address
// with or without brackets) is a loopback name or address: "localhost" in
// any case, 127.0.0.0/8, ::1. An empty host (":8080", every interface) is
// not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
