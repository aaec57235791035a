package httpx

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestLimitConnectionsPerSource(t *testing.T) {
	inner := testkit.Listen(t)
	ln := LimitConnections(inner, 2, 100)
	defer ln.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := dial(), dial()
	first, second := <-accepted, <-accepted
	// A third connection from the same address is closed at once: its
	// read ends with EOF (the test's deadline only guards a hang).
	c := dial()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("third connection: %v, want EOF", err)
	}
	// Once one closes, the address may connect again.
	first.Close()
	a.Close()
	d := dial()
	fourth := <-accepted
	if fourth == nil {
		t.Fatal("no connection accepted after one closed")
	}
	for _, x := range []net.Conn{b, c, d, second, fourth} {
		x.Close()
	}
}
