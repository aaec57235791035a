package tools

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// ReadLog keeps what apps were shown: the owner's record of what each app
// read. It is satisfied by *store.Store. Tools never call it themselves: a
// ReadRecorder batches for it, so that no tool call waits on SQLite.
type ReadLog interface {
	RecordReads(ctx context.Context, reads []store.Read) error
}

// Defaults of ReadRecorderOptions.
const (
	defaultReadFlushEvery = 5 * time.Second
	// About 200 bytes an entry: a few MB at most between flushes.
	defaultMaxPendingReads = 20_000
	// readShutdownFlush bounds the last flush, after the server stopped.
	readShutdownFlush = 10 * time.Second
)

// ReadRecorderOptions configures NewReadRecorder; the zero value is valid.
type ReadRecorderOptions struct {
	// Every is how often what was recorded is written; 0 means 5 seconds.
	Every time.Duration
	// MaxPending bounds what is held between two writes, in distinct
	// (app, note, tool, hour); past it, new reads are dropped and counted
	// until the next write. 0 means 20,000.
	MaxPending int
	Logger     *slog.Logger
	Now        func() time.Time
}

// ReadRecorder gathers the notes the tools showed each app and writes them
// to a ReadLog in the background, counted per app, note, tool and hour as
// the store keeps them. Recording never blocks on the ReadLog: under a
// flood it drops, counts and logs what does not fit. A nil *ReadRecorder
// records nothing. Build one per process, run Run, and share it across
// sessions through Deps.
type ReadRecorder struct {
	log   ReadLog
	every time.Duration
	max   int
	l     *slog.Logger
	now   func() time.Time
	kick  chan struct{} // asks Run to write early, when half full

	mu      sync.Mutex
	pending map[readKey]*store.Read

	flushMu sync.Mutex // one write at a time
	dropped atomic.Uint64
	// reported is dropped as last logged, under flushMu.
	reported uint64
}

type readKey struct {
	app, path, tool string
	hour            int64
}

// NewReadRecorder returns a recorder writing to l, or nil (recording
// nothing) when l is nil.
func NewReadRecorder(l ReadLog, o ReadRecorderOptions) *ReadRecorder {
	if l == nil {
		return nil
	}
	r := &ReadRecorder{log: l, every: o.Every, max: o.MaxPending, l: o.Logger, now: o.Now,
		kick: make(chan struct{}, 1), pending: make(map[readKey]*store.Read)}
	if r.every <= 0 {
		r.every = defaultReadFlushEvery
	}
	if r.max <= 0 {
		r.max = defaultMaxPendingReads
	}
	if r.l == nil {
		r.l = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// Record notes that tool showed app the notes at paths, once each.
func (r *ReadRecorder) Record(app, tool string, paths []string) {
	if r == nil || len(paths) == 0 {
		return
	}
	now := r.now()
	hour := now.Truncate(time.Hour).UnixNano()
	paths = distinct(paths)
	r.mu.Lock()
	var dropped uint64
	for _, p := range paths {
		k := readKey{app: app, path: p, tool: tool, hour: hour}
		if e, ok := r.pending[k]; ok {
			e.Count++
			e.Time = now
			continue
		}
		if len(r.pending) >= r.max {
			dropped++
			continue
		}
		r.pending[k] = &store.Read{App: app, Path: p, Tool: tool, Time: now, Count: 1}
	}
	full := len(r.pending) >= r.max/2
	r.mu.Unlock()
	if dropped > 0 {
		r.dropped.Add(dropped)
	}
	if full {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// distinct is paths without "" and repeats (a note linked twice was shown
// once), in a new slice.
func distinct(paths []string) []string {
	seen := make(map[string]struct{}, len(paths))
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if _, ok := seen[p]; ok || p == "" {
			continue
		}
		seen[p] = struct{}{}
		out = append(out, p)
	}
	return out
}

// Dropped is how many reads were not recorded because too many were
// waiting, since the recorder was made.
func (r *ReadRecorder) Dropped() uint64 {
	if r == nil {
		return 0
	}
	return r.dropped.Load()
}

// Run writes what was recorded every Every (sooner when half full) until
// ctx is done, then writes what is left and returns.
func (r *ReadRecorder) Run(ctx context.Context) {
	if r == nil {
		return
	}
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readShutdownFlush)
			r.Flush(fctx)
			cancel()
			return
		case <-t.C:
		case <-r.kick:
		}
		r.Flush(ctx)
	}
}

// Flush writes what was recorded so far. A failed write is logged and its
// reads are lost: holding them would let a broken database grow memory.
func (r *ReadRecorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	pending := r.pending
	r.pending = make(map[readKey]*store.Read, len(pending))
	r.mu.Unlock()
	if d := r.dropped.Load(); d > r.reported {
		r.l.Warn("reads not recorded: too many at once", "dropped", d-r.reported, "max_pending", r.max)
		r.reported = d
	}
	if len(pending) == 0 {
		return nil
	}
	batch := make([]store.Read, 0, len(pending))
	for _, e := range pending {
		batch = append(batch, *e)
	}
	if err := r.log.RecordReads(ctx, batch); err != nil {
		r.l.Warn("recording what apps read failed", "err", err, "reads", len(batch))
		return err
	}
	return nil
}

// shower is an output that showed the app notes (or attachments): their
// paths, which ReadRecorder records.
type shower interface {
	shown() []string
}

func (o fetchOut) shown() []string {
	if o.Notes == nil {
		return []string{o.ID}
	}
	var out []string
	for _, n := range o.Notes {
		if n.Error == nil {
			out = append(out, n.ID)
		}
	}
	return out
}

func (o searchOut) shown() []string {
	out := make([]string, 0, len(o.Results))
	for _, r := range o.Results {
		out = append(out, r.ID)
	}
	return out
}

// shown is the notes and attachments listed, not the folders.
func (o listOut) shown() []string {
	out := make([]string, 0, len(o.Entries))
	for _, e := range o.Entries {
		if e.Type != "folder" {
			out = append(out, e.Path)
		}
	}
	return out
}

// shown is the note and every note it names: links, backlinks, embeds.
func (o linksOut) shown() []string {
	out := make([]string, 0, 1+len(o.Outgoing)+len(o.Backlinks)+len(o.Embeds))
	out = append(out, o.ID)
	for _, l := range o.Outgoing {
		out = append(out, l.Path)
	}
	for _, l := range o.Backlinks {
		out = append(out, l.Path)
	}
	for _, e := range o.Embeds {
		out = append(out, e.Path)
	}
	return out
}

func (o recentOut) shown() []string {
	out := make([]string, 0, len(o.Notes))
	for _, n := range o.Notes {
		out = append(out, n.ID)
	}
	return out
}
