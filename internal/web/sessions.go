package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// sessions tracks the live MCP sessions of each token so that one token can
// hold at most max of them. The MCP SDK owns the sessions themselves (and
// closes idle ones); this only mirrors which token opened which session and
// when it was last used, learnt from the Mcp-Session-Id response header of
// the request that opened it and from ServerSession.Wait when it ends.
//
// When a token is at its limit, a new session evicts that token's least
// recently used session that has no request in flight (a client that crashed
// or forgot to DELETE its sessions thus never locks itself out). Only when
// every one of them is busy is the new session refused.
type sessions struct {
	max int
	now func() time.Time

	mu      sync.Mutex
	byID    map[string]*session
	byToken map[string]map[string]*session
	pending map[string]int // sessions being opened right now, per token
}

type session struct {
	id       string
	token    string
	lastSeen time.Time
	inflight int
	evicted  bool
	close    func() error
}

func newSessions(max int, now func() time.Time) *sessions {
	return &sessions{
		max:     max,
		now:     now,
		byID:    make(map[string]*session),
		byToken: make(map[string]map[string]*session),
		pending: make(map[string]int),
	}
}

// errTooManySessions is refused when all of a token's sessions are busy.
func errTooManySessions(limit int) *httpx.Error {
	return &httpx.Error{Status: http.StatusTooManyRequests, Code: CodeTooManySessions,
		Message: fmt.Sprintf("this token already has %d open MCP sessions and all are busy; close sessions you no longer use (HTTP DELETE) and try again", limit)}
}

// reserve makes room for one new session of token. It returns the session to
// evict (to be closed by the caller, outside the lock), or an error when the
// token is full of busy sessions. The caller must call opened or abandon.
func (t *sessions) reserve(token string) (evict *session, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	own := t.byToken[token]
	if len(own)+t.pending[token] >= t.max {
		for _, s := range own {
			if s.inflight == 0 && (evict == nil || s.lastSeen.Before(evict.lastSeen)) {
				evict = s
			}
		}
		if evict == nil {
			return nil, errTooManySessions(t.max)
		}
		// It stops counting at once, and is answered as gone at once, while
		// the SDK closes it (which waits for its running calls).
		delete(own, evict.id)
		evict.evicted = true
	}
	t.pending[token]++
	return evict, nil
}

// abandon gives back a reservation whose request opened no session.
func (t *sessions) abandon(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unpendLocked(token)
}

// opened turns token's reservation into the live session ss and forgets it
// again once the SDK ends it (DELETE, idle timeout, eviction).
func (t *sessions) opened(token string, ss *mcp.ServerSession) {
	s := &session{id: ss.ID(), token: token, lastSeen: t.now(), close: ss.Close}
	t.mu.Lock()
	t.unpendLocked(token)
	if t.byToken[token] == nil {
		t.byToken[token] = make(map[string]*session)
	}
	t.byToken[token][s.id] = s
	t.byID[s.id] = s
	t.mu.Unlock()
	go func() {
		ss.Wait()
		t.mu.Lock()
		defer t.mu.Unlock()
		// An evicted session is forgotten by whoever closes it, once the
		// SDK has forgotten it too.
		if t.byID[s.id] == s && !s.evicted {
			t.removeLocked(s.id)
		}
	}()
}

// closeEvicted closes a session that reserve evicted, then forgets it. Until
// then requests for it are answered 404 by cortex.
func (t *sessions) closeEvicted(s *session) {
	s.close()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[s.id] == s {
		t.removeLocked(s.id)
	}
}

// begin records a request for session id made with token. It reports false
// when the session belongs to another token or is being evicted. Sessions
// it does not know (already gone) are left to the SDK, which answers 404 for
// unknown ones and checks the TokenInfo user for the rest.
func (t *sessions) begin(id string, token string) (end func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s == nil {
		return func() {}, true
	}
	if s.token != token || s.evicted {
		return nil, false
	}
	s.inflight++
	s.lastSeen = t.now()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		s.inflight--
		s.lastSeen = t.now()
	}, true
}

// count reports the live sessions of token.
func (t *sessions) count(token string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byToken[token])
}

func (t *sessions) unpendLocked(token string) {
	if t.pending[token]--; t.pending[token] <= 0 {
		delete(t.pending, token)
	}
}

func (t *sessions) removeLocked(id string) {
	s := t.byID[id]
	if s == nil {
		return
	}
	delete(t.byID, id)
	if own := t.byToken[s.token]; own != nil {
		delete(own, id)
		if len(own) == 0 {
			delete(t.byToken, s.token)
		}
	}
}

// serverMemo carries, through one request that may open a session, the
// *mcp.Server made for it: the SDK asks for a server more than once per
// request, and cortex must both build it once and find the new session in it.
type serverMemo struct {
	srv *mcp.Server
}

type serverMemoKey struct{}

// findSession returns the session called id of srv, if it is still there.
func findSession(srv *mcp.Server, id string) *mcp.ServerSession {
	if srv == nil || id == "" {
		return nil
	}
	for ss := range srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// getServer is the SDK's getServer callback. A request opening a session
// gets a fresh server from Options.NewMCPServer (so each session sees the
// instructions as they are now); other requests only need one to read the
// supported protocol versions from, and reuse the latest.
func (s *Server) getServer(r *http.Request) *mcp.Server {
	memo, _ := r.Context().Value(serverMemoKey{}).(*serverMemo)
	if memo == nil {
		if srv := s.lastServer.Load(); srv != nil {
			return srv
		}
		memo = new(serverMemo)
	}
	if memo.srv == nil {
		memo.srv = s.newMCPServer(r)
		if memo.srv != nil {
			s.lastServer.Store(memo.srv)
		}
	}
	return memo.srv
}

func withServerMemo(ctx context.Context, memo *serverMemo) context.Context {
	return context.WithValue(ctx, serverMemoKey{}, memo)
}
