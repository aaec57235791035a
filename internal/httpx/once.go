package httpx

import (
	"sync"
	"time"
)

// OnceSet remembers keys that may be used once (a client assertion's id, a
// passkey ceremony's challenge), each until it expires, so that a replay
// within its life is refused. Unlike an LRU it never forgets a live key to
// make room, which would let a replay through: holding max live keys, it
// refuses new ones instead. Safe for concurrent use.
type OnceSet struct {
	max int

	mu sync.Mutex
	m  map[string]time.Time // key → when it expires
}

// NewOnceSet returns a set of at most n live keys (at least one).
func NewOnceSet(n int) *OnceSet {
	return &OnceSet{max: max(n, 1), m: make(map[string]time.Time)}
}

// Use records key until exp, at now. It reports whether key was fresh (not
// used within its life) and whether there was room for it; when the set is
// full, the expired keys are dropped first.
func (s *OnceSet) Use(key string, exp, now time.Time) (fresh, room bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[key]; ok && now.Before(e) {
		return false, true
	}
	if len(s.m) >= s.max {
		s.pruneLocked(now)
		if len(s.m) >= s.max {
			return false, false
		}
	}
	s.m[key] = exp
	return true, true
}

// Prune drops the keys expired at now.
func (s *OnceSet) Prune(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked(now)
}

func (s *OnceSet) pruneLocked(now time.Time) {
	for k, e := range s.m {
		if !now.Before(e) {
			delete(s.m, k)
		}
	}
}

// Len reports how many keys are remembered.
func (s *OnceSet) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
