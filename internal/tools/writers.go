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

// CacheJournal wraps j so that the last writer of a note is known without
// a query: fetch, search and recent name the last writer of every note
// they return, and a SQL query per call costs more than reading the note.
// Build one per process and share it across sessions (Deps is copied into
// each session's server): the tools' writes go through RecordWrite, so the
// wrapper sees each of them. When j is a journalFeed (*store.Store), the
// first lookup after a request's credential check loads the latest entry
// of every path at once (up to maxCompleteWriters paths), so that a note
// with none needs no query either; entries written to j by anything else
// — the owner's console undoing a change, `cortex admin undo` in another
// process — are found once j says something was committed: the next
// lookup reads the entries added since the last one it saw. Otherwise each
// note is looked up in j once and then remembered. Entries that j's
// pruning drops stay remembered until the process restarts.
func CacheJournal(j Journal) Journal {
	if j == nil {
		return nil
	}
	c := &cachedJournal{j: j, last: make(map[string]lastWrite), unsure: map[string]bool{}}
	c.feed, _ = j.(journalFeed)
	return c
}

// journalFeed is a journal that tells when anything was committed to it
// and which entries were added (*store.Store).
type journalFeed interface {
	// SeenVersion changes after a commit once a request's credential
	// check has read the database's data version; 0 while unknown.
	SeenVersion() int64
	// JournalWrites changes when this process records an entry.
	JournalWrites() int64
	LastJournalID(ctx context.Context) (int64, error)
	JournalAfter(ctx context.Context, afterID int64, limit int) ([]store.JournalEntry, error)
	LatestWrites(ctx context.Context, limit int) (map[string]store.JournalEntry, bool, error)
}

// maxCompleteWriters bounds the paths CacheJournal loads to know every
// note's last writer (about 150 bytes each); past it, notes are looked up
// one by one and remembered, as without a feed.
const maxCompleteWriters = 1 << 16

// feedVersion is what a journalFeed says of what was committed.
type feedVersion struct{ seen, own int64 }

// maxCatchUp is how many new entries a lookup reads to bring the cache up
// to date; past it, the cache starts over.
const maxCatchUp = 1000

type cachedJournal struct {
	j    Journal
	feed journalFeed // nil when j cannot tell what changed

	// catchMu serialises catching up; version and lastID (under mu) are
	// the feed's version and newest entry id the cache has caught up to.
	catchMu sync.Mutex
	version feedVersion
	lastID  int64
	caught  bool // lastID is known

	mu sync.Mutex
	// last maps a path to its latest successful entry, or to found=false
	// when j has none.
	last map[string]lastWrite
	// complete is set when last holds every path with a successful entry
	// up to lastID, but those in unsure (whose RecordWrite failed, so j
	// may or may not hold it): a path absent from both has none.
	complete bool
	unsure   map[string]bool
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
		if c.complete {
			c.unsure[e.Path] = true
		}
	case e.Result == store.ResultOK:
		c.putLocked(e.Path, lastWrite{found: true, e: e})
	}
	return err
}

func (c *cachedJournal) LastWrites(ctx context.Context, paths []string) (map[string]store.JournalEntry, error) {
	var v feedVersion
	if c.feed != nil {
		v = feedVersion{seen: c.feed.SeenVersion(), own: c.feed.JournalWrites()}
	}
	c.mu.Lock()
	if v.seen != 0 && v != c.version {
		c.mu.Unlock()
		c.catchUp(ctx, v)
		c.mu.Lock()
	}
	out := make(map[string]store.JournalEntry, len(paths))
	var miss []string
	for _, p := range paths {
		if lw, ok := c.last[p]; ok && lw.found {
			out[p] = lw.e
		} else if !ok && (!c.complete || c.unsure[p]) {
			miss = append(miss, p)
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
			delete(c.unsure, p)
			if found || !c.complete {
				c.putLocked(p, lastWrite{found: found, e: e})
			}
		}
	}
	return out, nil
}

func (c *cachedJournal) putLocked(p string, lw lastWrite) {
	if c.complete && len(c.last) >= maxCompleteWriters {
		c.complete = false // too many to know them all: remember some
		clear(c.unsure)
	}
	if _, ok := c.last[p]; !ok && !c.complete && len(c.last) >= maxCachedWriters {
		for k := range c.last { // map order is random
			delete(c.last, k)
			break
		}
	}
	c.last[p] = lw
}

// catchUp brings the cache up to the feed's version v: the first time,
// the latest entry of every path; then the successful entries added since
// the newest one it saw replace what it remembers of their notes. When
// that cannot be done (an error, too many entries, ids that went back
// because the journal was emptied) it forgets everything, so that the
// next lookup starts over.
func (c *cachedJournal) catchUp(ctx context.Context, v feedVersion) {
	c.catchMu.Lock()
	defer c.catchMu.Unlock()
	c.mu.Lock()
	done, after, first := c.version == v, c.lastID, !c.caught
	c.mu.Unlock()
	if done {
		return
	}
	var (
		entries  []store.JournalEntry
		all      map[string]store.JournalEntry
		complete bool
		err      error
	)
	if first {
		// From now on; what the cache holds may predate entries below
		// that id, so it starts over from every path's latest entry (an
		// entry added in between is read again next time, harmlessly).
		if after, err = c.feed.LastJournalID(ctx); err == nil {
			all, complete, err = c.feed.LatestWrites(ctx, maxCompleteWriters)
		}
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
		clear(c.unsure)
		c.complete = false
	}
	if err != nil || len(entries) > maxCatchUp {
		c.version, c.lastID, c.caught = feedVersion{}, 0, false
		return
	}
	if first {
		for p, e := range all {
			c.last[p] = lastWrite{found: true, e: e}
		}
		c.complete = complete
	}
	for _, e := range entries {
		if e.Result == store.ResultOK {
			c.putLocked(e.Path, lastWrite{found: true, e: e})
		}
		after = max(after, e.ID)
	}
	c.version, c.lastID, c.caught = v, after, true
}
