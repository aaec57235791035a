package web

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/certs"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

// serveOn serves h on ln through the one serve path, in mode off.
func serveOn(ctx context.Context, t *testing.T, ln net.Listener, h http.Handler, grace time.Duration) error {
	srv, err := certs.New(certs.Options{Mode: certs.ModeOff, ListenAddr: ln.Addr().String(), Listener: ln, ShutdownGrace: grace})
	if err != nil {
		t.Error(err)
		return err
	}
	return srv.Serve(ctx, h)
}

// serveUntilEnd serves h on a loopback port until the test ends and
// returns the address.
func serveUntilEnd(t *testing.T, h http.Handler) string {
	ln := testkit.Listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, t, ln, h, 0) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

func TestServeFinishesMCPCalls(t *testing.T) {
	h := newHarness(t, nil)
	ln := testkit.Listen(t)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveOn(ctx, t, ln, h.srv.Handler(), 5*time.Second) }()

	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: testkit.Bearer{Token: secretA, Base: http.DefaultTransport}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		called <- err
	}()
	<-h.entered // a tool call (say, a write) is running

	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v while a tool call was running", err)
	case err := <-called:
		t.Fatalf("tool call ended by shutdown: %v", err)
	default:
	}
	close(h.release)
	if err := <-called; err != nil {
		t.Errorf("tool call during shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
