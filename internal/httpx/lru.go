package httpx

import (
	"container/list"
	"sync"
)

// LRU is a map bounded to a number of entries: past it, the least recently
// used entry is forgotten. It is what every per-source, per-token or
// per-device memory of the edge keeps its state in, so that strangers naming
// ever new keys cannot grow it. Safe for concurrent use; a caller that
// changes a value it got (a pointer) needs its own lock for that.
type LRU[K comparable, V any] struct {
	max int

	mu sync.Mutex
	ll *list.List // of *lruEntry, most recently used at the front
	m  map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

// NewLRU returns an LRU of at most n entries (at least one).
func NewLRU[K comparable, V any](n int) *LRU[K, V] {
	return &LRU[K, V]{max: max(n, 1), ll: list.New(), m: make(map[K]*list.Element)}
}

// Get returns k's value and marks it used.
func (c *LRU[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).val, true
}

// Put sets k's value, marks it used and forgets the least recently used
// entries beyond the bound.
func (c *LRU[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		el.Value.(*lruEntry[K, V]).val = v
		c.ll.MoveToFront(el)
		return
	}
	c.putLocked(k, v)
}

// putLocked adds k, which is not present. c.mu must be held.
func (c *LRU[K, V]) putLocked(k K, v V) {
	c.m[k] = c.ll.PushFront(&lruEntry[K, V]{k, v})
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*lruEntry[K, V]).key)
	}
}

// GetOrPut returns k's value, or stores and returns fresh() when there is
// none; either way k is marked used.
func (c *LRU[K, V]) GetOrPut(k K, fresh func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*lruEntry[K, V]).val
	}
	v := fresh()
	c.putLocked(k, v)
	return v
}

// Remove forgets k.
func (c *LRU[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.ll.Remove(el)
		delete(c.m, k)
	}
}

// Len reports how many entries are remembered.
func (c *LRU[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
