package netaddr

import "testing"

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "localhost:8080": true,
		"127.0.0.1": true, "127.1.2.3:80": true, "::1": true, "[::1]": true, "[::1]:8080": true,
		"": false, ":8080": false, "0.0.0.0:80": false, "example.com": false, "10.0.0.1": false,
		"localhost.example.com": false, "[::]:80": false, "192.168.1.1:22": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
