package tools

import (
	"context"
	"sync"

	"github.com/cortex-mcp/cortex/internal/store"
)

// maxCachedWriters bounds CacheJournal's memory (about 100 bytes a note,
// most of them notes with no journaled write); when full, a note picked at
// random makes room, so that fetches spread over a vault larger than the
// cache still find most notes in it.
const maxCachedWriters = 16384

// CacheJournal wraps j so that the last writer of a note is looked up in j
// once and then remembered: fetch, search and recent name the last writer of
// every note they return, and a SQL query per call costs more than reading
// the note. Build one per process and share it across sessions (Deps is
// copied into each session's server): every write is journaled through
// RecordWrite, so the wrapper sees each change and remembers it, and nothing
// it answers is staler than j. Entries that j's pruning drops stay
// remembered until the process restarts or the cache fills up.
func CacheJournal(j Journal) Journal {
	if j == nil {
		return nil
	}
	return &cachedJournal{j: j, last: make(map[string]lastWrite)}
}

type cachedJournal struct {
	j Journal

	mu sync.Mutex
	// last maps a path to its latest successful entry, or to found=false
	// when j has none.
	last map[string]lastWrite
	// gen counts writes, so that a lookup that raced with a write does not
	// store what it read before the write.
	gen uint64
}

type lastWrite struct {
	found bool
	e     store.JournalEntry
}

func (c *cachedJournal) RecordWrite(ctx context.Context, e store.JournalEntry) error {
	err := c.j.RecordWrite(ctx, e)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	switch {
	case err != nil:
		// Whether it was stored is unknown: ask j next time.
		delete(c.last, e.Path)
	case e.Result == store.ResultOK:
		c.putLocked(e.Path, lastWrite{found: true, e: e})
	}
	return err
}

func (c *cachedJournal) LastWrites(ctx context.Context, paths []string) (map[string]store.JournalEntry, error) {
	out := make(map[string]store.JournalEntry, len(paths))
	var miss []string
	c.mu.Lock()
	for _, p := range paths {
		if lw, ok := c.last[p]; !ok {
			miss = append(miss, p)
		} else if lw.found {
			out[p] = lw.e
		}
	}
	gen := c.gen
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	got, err := c.j.LastWrites(ctx, miss)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range miss {
		e, found := got[p]
		if found {
			out[p] = e
		}
		if c.gen == gen {
			c.putLocked(p, lastWrite{found: found, e: e})
		}
	}
	return out, nil
}

func (c *cachedJournal) putLocked(p string, lw lastWrite) {
	if _, ok := c.last[p]; !ok && len(c.last) >= maxCachedWriters {
		for k := range c.last { // map order is random
			delete(c.last, k)
			break
		}
	}
	c.last[p] = lw
}
