package oauth

import (
	"container/list"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// docCache keeps the metadata documents of clients not yet approved, least
// recently used first out, so strangers naming many URLs cannot grow it.
type docCache struct {
	mu  sync.Mutex
	max int
	lru *list.List // of store.OAuthClient, most recent at the front
	m   map[string]*list.Element
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, lru: list.New(), m: make(map[string]*list.Element)}
}

func (c *docCache) get(id string) (store.OAuthClient, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[id]
	if !ok {
		return store.OAuthClient{}, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(store.OAuthClient), true
}

func (c *docCache) put(v store.OAuthClient) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[v.ID]; ok {
		el.Value = v
		c.lru.MoveToFront(el)
		return
	}
	c.m[v.ID] = c.lru.PushFront(v)
	for c.lru.Len() > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.m, old.Value.(store.OAuthClient).ID)
	}
}

func (c *docCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		c.lru.Remove(el)
		delete(c.m, id)
	}
}

// jtiCache remembers client assertion ids until their assertion expires,
// so that each is accepted once. It never forgets a live id to make room:
// when full it refuses new assertions instead.
type jtiCache struct {
	mu  sync.Mutex
	max int
	m   map[string]time.Time // client id + jti → expiry
}

func newJTICache(max int) *jtiCache { return &jtiCache{max: max, m: make(map[string]time.Time)} }

// use records key until exp and reports whether it was new and there was room.
func (c *jtiCache) use(key string, exp, now time.Time) (fresh, room bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && now.Before(e) {
		return false, true
	}
	if len(c.m) >= c.max {
		c.pruneLocked(now)
		if len(c.m) >= c.max {
			return false, false
		}
	}
	c.m[key] = exp
	return true, true
}

func (c *jtiCache) prune(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked(now)
}

func (c *jtiCache) pruneLocked(now time.Time) {
	for k, e := range c.m {
		if !now.Before(e) {
			delete(c.m, k)
		}
	}
}
