package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

const (
	mcpPath       = "/mcp"
	sessionHeader = "Mcp-Session-Id"
)

// serveMCP guards the SDK's streamable HTTP handler: token, per-token rate,
// session ownership and the per-token session cap, in that order.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) error {
	id, err := s.authenticate(r)
	if err != nil {
		return err
	}
	httpx.SetApp(r, id.App)
	if ok, retry := s.tokenRate.Take(id.Subject); !ok {
		return errRateLimited("for this token", retry)
	}
	if err := s.checkScope(r, id); err != nil {
		return err
	}
	ctx := context.WithValue(r.Context(), tokenInfoKey{}, tokenInfo(id))

	if sid := r.Header.Get(sessionHeader); sid != "" {
		end, ok := s.sessions.begin(sid, id.Subject)
		if !ok {
			// Answered like an unknown session: another token's session ids
			// are not even confirmed to exist.
			return &httpx.Error{Status: http.StatusNotFound, Code: CodeSessionNotFound,
				Message: "this MCP session does not exist for this token; start a new session with initialize"}
		}
		defer end()
		if r.Method == http.MethodGet {
			// A GET is a stream that may stay open for hours: it ends when
			// its credential stops being valid, like any new request would.
			var stop func()
			secret, _ := bearerSecret(r)
			ctx, stop = s.whileValid(ctx, secret)
			defer stop()
		}
		s.mcp.ServeHTTP(w, r.WithContext(ctx))
		return nil
	}
	if r.Method != http.MethodPost {
		// GET and DELETE need a session; the SDK says so.
		s.mcp.ServeHTTP(w, r.WithContext(ctx))
		return nil
	}

	// A POST without a session opens one.
	evict, err := s.sessions.reserve(id.Subject)
	if err != nil {
		return err
	}
	if evict != nil {
		s.logger.Info("closing least recently used MCP session to make room for a new one", "app", id.App)
		// Close waits for the session's running calls; the new session
		// need not wait with it.
		go s.sessions.closeEvicted(evict)
	}
	memo := new(serverMemo)
	// The SDK may write the response from its own goroutines.
	record := sync.OnceFunc(func() {
		if ss := findSession(memo.srv, w.Header().Get(sessionHeader)); ss != nil {
			s.sessions.opened(id.Subject, ss)
		} else {
			s.sessions.abandon(id.Subject)
		}
	})
	// The session is recorded as its id is about to reach the client, which
	// may use it before this handler returns.
	s.mcp.ServeHTTP(&headerHook{ResponseWriter: w, before: record}, r.WithContext(withServerMemo(ctx, memo)))
	record()
	return nil
}

// headerHook calls before just before the response header is sent.
type headerHook struct {
	http.ResponseWriter
	before func()
}

func (h *headerHook) WriteHeader(code int) {
	h.before()
	h.ResponseWriter.WriteHeader(code)
}

func (h *headerHook) Write(b []byte) (int, error) {
	h.before()
	return h.ResponseWriter.Write(b)
}

func (h *headerHook) Flush() {
	h.before()
	http.NewResponseController(h.ResponseWriter).Flush()
}

func (h *headerHook) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// revalidateEvery is how often an open stream's credential is checked again.
const revalidateEvery = 30 * time.Second

// whileValid returns a context that is cancelled once secret no longer
// verifies (revoked, expired), checked every revalidateEvery; stop ends the
// watch.
func (s *Server) whileValid(parent context.Context, secret string) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(revalidateEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := s.verify(context.WithoutCancel(ctx), secret); errors.Is(err, ErrUnknownToken) {
					s.logger.Info("closing an MCP stream: its token is no longer valid")
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel() }
}
