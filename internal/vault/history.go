package vault

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Versions keeps every version of the notes that cortex writes or sees, in
// the state folder (never in the vault). The vault calls Keep before it
// replaces, moves or trashes a note, under the note's lock, and replaces the
// note only once Keep has returned: an acknowledged write always has its
// predecessor stored. When Keep fails the write is refused.
type Versions interface {
	// Keep durably stores the versions, all or none, and returns the id of
	// each one added (0 for one skipped as already stored). An *Error it
	// returns reaches the caller as is; any other error is reported as
	// history_unavailable.
	Keep(ctx context.Context, vs []Kept) ([]int64, error)
	// Drop removes versions that Keep added for a write that then failed.
	Drop(ctx context.Context, ids []int64) error
}

// Kept is one version handed to History.Keep.
type Kept struct {
	Path    string
	Content []byte // nil with Gone: the content last kept for Path
	Writer  string
	Kind    string
	// Gone: the note left Path after this version (trashed, moved away,
	// or removed outside cortex).
	Gone bool
	// Observed: a version cortex found rather than wrote (what a write
	// replaces, an outside change); skipped when it is already the last
	// version kept for Path.
	Observed bool
}

// Kinds of change, as History records them: the same set as store's,
// which the keeper passes them to unchanged (internal/e2e checks that they
// agree).
const (
	KindCreate   = "create"
	KindEdit     = "edit"
	KindAppend   = "append"
	KindMove     = "move"
	KindDelete   = "delete"
	KindRestore  = "restore"
	KindExternal = "external"
)

// WriterExternal names the writer of changes made outside cortex.
const WriterExternal = "external"

// CodeHistoryUnavailable: the version a write would replace could not be
// stored, so the write was refused.
const CodeHistoryUnavailable = "history_unavailable"

// historyTimeout bounds the keeping of an outside change, which no caller
// waits for.
const historyTimeout = 30 * time.Second

type writerKey struct{}

// WithWriter returns a context whose vault writes are kept in the history
// as written by name (an app, or "owner (cli)").
func WithWriter(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, writerKey{}, name)
}

func writerOf(ctx context.Context) string {
	if w, ok := ctx.Value(writerKey{}).(string); ok && w != "" {
		return w
	}
	return "cortex"
}

// keep stores vs before a change; nil History keeps nothing.
func (v *Vault) keep(ctx context.Context, vs ...Kept) ([]int64, *Error) {
	if v.history == nil {
		return nil, nil
	}
	w := writerOf(ctx)
	for i := range vs {
		if vs[i].Writer == "" {
			vs[i].Writer = w
		}
	}
	// The versions must be stored even if the caller goes away now: the
	// write that follows does not stop either.
	ids, err := v.history.Keep(context.WithoutCancel(ctx), vs)
	if err != nil {
		var ve *Error
		if errors.As(err, &ve) {
			return nil, ve
		}
		v.log.Error("vault: note history not written; write refused", "err", err)
		return nil, newErr(CodeHistoryUnavailable, reasonNone, err)
	}
	return ids, nil
}

// unkeep drops the versions kept for a write that failed.
func (v *Vault) unkeep(ctx context.Context, ids []int64) {
	if v.history == nil || len(ids) == 0 {
		return
	}
	if err := v.history.Drop(context.WithoutCancel(ctx), ids); err != nil {
		v.log.Warn("vault: a version of a failed write stays in the history", "err", err)
	}
}

// keepObserved records a version found on disk (an outside change, or an
// outside removal with gone), logging rather than failing: the change is
// already made.
func (v *Vault) keepObserved(p string, data []byte, gone bool) {
	if v.history == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
	defer cancel()
	k := Kept{Path: p, Content: data, Writer: WriterExternal, Kind: KindExternal, Gone: gone, Observed: true}
	if _, err := v.history.Keep(ctx, []Kept{k}); err != nil {
		v.log.Warn("vault: an outside change was not kept in the note history", "err", err)
	}
}

// Restore writes content, an earlier version of the note at p, as a new
// version. version guards it like every change: the note's current
// version, or "" when the note must not exist (a deleted note brought
// back). The history records it as a restore by the context's writer.
func (v *Vault) Restore(ctx context.Context, p, version, content string) (WriteResult, error) {
	if version == "" {
		return v.createAs(ctx, KindRestore, p, content, false)
	}
	return v.modifyAs(ctx, KindRestore, p, version, true, nil, func(string) (string, *Error) {
		return content, nil
	})
}

// CheckNotePath reports whether p could name a note that tools may read
// (it need not exist): the history of anything else is never asked for.
func (v *Vault) CheckNotePath(p string) error {
	if e := v.checkReadable(p); e != nil {
		return e
	}
	return nil
}

// pendingKeep is a keep running while the new text is written to its
// temp file: both reach the disk in parallel, and the note is replaced
// only once both have.
type pendingKeep struct {
	v    *Vault
	done chan struct{}
	ids  []int64
	e    *Error
}

// keepAsync starts keeping vs in the background.
func (v *Vault) keepAsync(ctx context.Context, vs ...Kept) *pendingKeep {
	k := &pendingKeep{v: v, done: make(chan struct{})}
	if v.history == nil {
		close(k.done)
		return k
	}
	go func() {
		defer close(k.done)
		k.ids, k.e = v.keep(ctx, vs...)
	}()
	return k
}

// ready waits for the keep and reports its failure.
func (k *pendingKeep) ready() *Error {
	<-k.done
	return k.e
}

// undo waits for the keep and drops what it stored: the write failed.
func (k *pendingKeep) undo(ctx context.Context) {
	<-k.done
	k.v.unkeep(ctx, k.ids)
}

// keepFound stores at most foundBatch notes, and about foundBytes of
// text, in one transaction.
const (
	foundBatch = 64
	foundBytes = 4 << 20
)

// keepFound stores the notes as the index found them at start, as
// outside versions: a change made while cortex was stopped is an outside
// change too, and the text it left must survive the next outside change.
// Notes already stored as they are cost a hash and a lookup each; nothing
// is written for them. It runs in the background once the index is built,
// holding a batch of notes' locks at a time so that no write interleaves.
func (ix *indexer) keepFound() {
	v := ix.v
	if v.history == nil {
		return
	}
	x := ix.current()
	if x == nil {
		return
	}
	type found struct {
		path string
		size int64
	}
	paths := make([]found, 0, x.Live())
	for d := range x.Docs() {
		paths = append(paths, found{d.Path, d.Size})
	}
	ix.mu.RUnlock()
	// Like the index build, this pass reads every note once and drops it.
	bulkDone := sync.OnceFunc(v.bulkRead())
	defer bulkDone()
	start, kept := time.Now(), 0
	for len(paths) > 0 {
		select {
		case <-ix.stop:
			return
		default:
		}
		n, size := 0, int64(0)
		for n < len(paths) && n < foundBatch && (n == 0 || size+paths[n].size <= foundBytes) {
			size += paths[n].size
			n++
		}
		batch := make([]string, n)
		for i := range n {
			batch[i] = paths[i].path
		}
		paths = paths[n:]
		unlock, e := v.locks.lock(context.Background(), batch...)
		if e != nil {
			return
		}
		vs := make([]Kept, 0, len(batch))
		for _, p := range batch {
			if data, _, e := v.readNoteFile(p); e == nil {
				vs = append(vs, Kept{Path: p, Content: data, Writer: WriterExternal, Kind: KindExternal, Observed: true})
			}
		}
		if len(vs) == 0 {
			unlock()
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
		ids, err := v.history.Keep(ctx, vs)
		cancel()
		unlock()
		if err != nil {
			v.log.Warn("vault: the notes as found at start were not all kept in the history", "err", err)
			return
		}
		for _, id := range ids {
			if id != 0 {
				kept++
			}
		}
	}
	bulkDone()
	// Logged even when nothing was new, so that whoever waits for the
	// start's background work to end (the benchmark harness) sees it end.
	v.log.Info("note history: kept the notes as found at start", "notes", kept, "duration", time.Since(start).Round(time.Millisecond))
}
