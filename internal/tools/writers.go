package tools

import (
	"context"
	"errors"
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
// copied into each session's server): the tools' writes go through
// RecordWrite, so the wrapper sees each of them. Entries written to j by
// anything else — the owner's console undoing a change, `cortex admin undo`
// in another process — are found when j is a journalFeed (*store.Store):
// once j says something was committed, the next lookup reads the entries
// added since the last one it saw. Entries that j's pruning drops stay
// remembered until the process restarts or the cache fills up.
func CacheJournal(j Journal) Journal {
	if j == nil {
		return nil
	}
	c := &cachedJournal{j: j, last: make(map[string]lastWrite)}
	c.feed, _ = j.(journalFeed)
	return c
}

// journalFeed is a journal that tells when anything was committed to it
// and which entries were added (*store.Store).
type journalFeed interface {
	// SeenVersion changes after a commit once a request's credential
	// check has read the database's data version; 0 while unknown.
	SeenVersion() int64
	LastJournalID(ctx context.Context) (int64, error)
	JournalAfter(ctx context.Context, afterID int64, limit int) ([]store.JournalEntry, error)
}

// maxCatchUp is how many new entries a lookup reads to bring the cache up
// to date; past it, the cache starts over.
const maxCatchUp = 1000

type cachedJournal struct {
	j    Journal
	feed journalFeed // nil when j cannot tell what changed

	// catchMu serialises catching up; version and lastID (under mu) are
	// the data version and newest entry id the cache has caught up to.
	catchMu sync.Mutex
	version int64
	lastID  int64
	caught  bool // lastID is known

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
	var v int64
	if c.feed != nil {
		v = c.feed.SeenVersion()
	}
	c.mu.Lock()
	if v != 0 && v != c.version {
		c.mu.Unlock()
		c.catchUp(ctx, v)
		c.mu.Lock()
	}
	out := make(map[string]store.JournalEntry, len(paths))
	var miss []string
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

// catchUp brings the cache up to data version v: the successful entries
// added since the newest one it saw replace what it remembers of their
// notes. When that cannot be done (an error, too many entries, ids that
// went back because the journal was emptied) it forgets everything, so
// the next lookups ask j.
func (c *cachedJournal) catchUp(ctx context.Context, v int64) {
	c.catchMu.Lock()
	defer c.catchMu.Unlock()
	c.mu.Lock()
	done, after, first := c.version == v, c.lastID, !c.caught
	c.mu.Unlock()
	if done {
		return
	}
	var (
		entries []store.JournalEntry
		err     error
	)
	if first {
		// From now on; what the cache holds may predate entries below
		// that id, so it starts over.
		after, err = c.feed.LastJournalID(ctx)
	} else if entries, err = c.feed.JournalAfter(ctx, after, maxCatchUp+1); err == nil && len(entries) == 0 {
		var newest int64
		if newest, err = c.feed.LastJournalID(ctx); err == nil && newest < after {
			err = errors.New("the journal's ids went back")
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if first || err != nil || len(entries) > maxCatchUp {
		clear(c.last)
	}
	if err != nil || len(entries) > maxCatchUp {
		c.version, c.lastID, c.caught = 0, 0, false
		return
	}
	for _, e := range entries {
		if e.Result == store.ResultOK {
			c.putLocked(e.Path, lastWrite{found: true, e: e})
		}
		after = max(after, e.ID)
	}
	c.version, c.lastID, c.caught = v, after, true
}
