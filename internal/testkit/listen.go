package testkit

import (
	"net"
	"testing"
)

// Listen opens a TCP listener on a free loopback port; it is closed when
// the test ends, if whoever it was handed to has not closed it already.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}
