package certs

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// signalHandler is a slog.Handler that reports each message on a channel.
type signalHandler struct{ msgs chan string }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.msgs <- r.Message:
	default:
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// waitFor reads messages until want arrives.
func waitFor(t *testing.T, msgs <-chan string, want string) {
	t.Helper()
	for m := range msgs {
		if m == want {
			return
		}
	}
}

// serveOn serves h in mode off on ln, as cortex serve does.
func serveOn(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger, grace time.Duration) error {
	srv, err := New(Options{Mode: ModeOff, ListenAddr: ln.Addr().String(), Listener: ln, Logger: logger, ShutdownGrace: grace})
	if err != nil {
		return err
	}
	return srv.Serve(ctx, h)
}

func TestServeLetsInFlightWriteFinish(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "written")
	})
	ln := testkit.Listen(t)
	msgs := make(chan string, 16)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveOn(ctx, ln, h, slog.New(signalHandler{msgs}), 0) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader("{}"))
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	<-entered
	cancel()
	waitFor(t, msgs, "no longer accepting connections")

	// New connections are refused while the write is still running.
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("a new connection was accepted during shutdown")
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v before the in-flight request finished", err)
	default:
	}

	close(release)
	if r := <-got; r.err != nil || r.body != "written" {
		t.Fatalf("in-flight request: body %q err %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestServeEndsStreamsAndBoundsTheWait(t *testing.T) {
	streaming := make(chan struct{})
	stuck := make(chan struct{})
	defer close(stuck)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			// An SSE stream: lives until its context ends.
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			streaming <- struct{}{}
			<-r.Context().Done()
			return
		}
		streaming <- struct{}{}
		<-stuck // a request that never finishes
	})

	t.Run("stream only", func(t *testing.T) {
		ln := testkit.Listen(t)
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		// A grace long enough that reaching it would fail the test run.
		go func() { served <- serveOn(ctx, ln, h, nil, time.Hour) }()
		resp, err := http.Get("http://" + ln.Addr().String() + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		<-streaming
		cancel()
		if err := <-served; err != nil {
			t.Fatalf("Serve with an open stream: %v", err)
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Errorf("stream did not end cleanly: %v", err)
		}
	})

	t.Run("stuck request", func(t *testing.T) {
		ln := testkit.Listen(t)
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- serveOn(ctx, ln, h, nil, time.Millisecond) }()
		go func() {
			resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", nil)
			if err == nil {
				resp.Body.Close()
			}
		}()
		<-streaming
		cancel()
		if err := <-served; err == nil || !strings.Contains(err.Error(), "cut off") {
			t.Fatalf("Serve with a stuck request: %v, want the grace to run out", err)
		}
	})
}

func TestServeReportsListenerFailure(t *testing.T) {
	ln := testkit.Listen(t)
	ln.Close()
	if err := serveOn(t.Context(), ln, http.NotFoundHandler(), nil, 0); err == nil {
		t.Fatal("Serve on a closed listener returned nil")
	}
}
