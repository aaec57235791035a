package store

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// HistoryFileName is the note history's database file in the state folder.
// It is a file of its own: it grows with the notes, and the owner may move
// or drop it without touching tokens and sign-in.
const HistoryFileName = "history.db"

// History defaults.
const (
	DefaultHistoryDays     = 30
	DefaultHistoryMaxBytes = 512 << 20
	// HistoryYear is how long one version a day (and a deleted note's last
	// content) is kept after the every-version window.
	HistoryYear = 365 * 24 * time.Hour
)

// Kinds of versions. A version records what happened to the note: the
// content it holds is what the note held after that change (for a delete or
// a move away, what it held when it left). vault declares the same set
// (neither may import the other); internal/e2e checks that they agree.
const (
	KindCreate   = "create"
	KindEdit     = "edit"
	KindAppend   = "append"
	KindMove     = "move"
	KindDelete   = "delete"
	KindRestore  = "restore"
	KindExternal = "external"
)

// History errors.
var (
	// ErrHistoryDiskLow: storing the version would take the disk below the
	// free-space floor.
	ErrHistoryDiskLow = errors.New("storing the note history would take the disk below its free-space floor")
	// ErrNoHistory: no version of the note (or with that id) is stored.
	ErrNoHistory = errors.New("no stored version")
)

//go:embed historydb/migrations/*.sql
var historyFiles embed.FS

// HistoryOptions configures OpenHistory. Zero values mean the defaults.
type HistoryOptions struct {
	Now    func() time.Time
	Logger *slog.Logger
	// Days keeps every version this many days (default 30); older ones
	// thin to one a day for a year.
	Days int
	// MaxBytes caps the compressed contents stored (default 512 MiB).
	// Reaching it makes room (makeRoom says in which order); it never
	// refuses a Keep: only the disk floor does.
	MaxBytes int64
	// FreeSpace reports free bytes on the disk holding the state folder;
	// nil skips the check. MinFree is the floor Keep never goes below.
	FreeSpace func() (uint64, error)
	MinFree   uint64

	// migrations replaces the embedded schema history (tests of upgrades).
	migrations fs.FS
}

// HistoryDB is the open note history database (history.db). It is safe
// for concurrent use.
type HistoryDB struct {
	db   *sql.DB
	file string // history.db's path
	// Statements of every Keep, prepared once.
	blobByHash, lastVersion, lastWithHash, insertBlob, insertVersion, storedTotal, ownerOf *sql.Stmt
	// wal makes committed versions durable, one sync for many commits
	// (tests count or hold its syncs).
	wal       *walSync
	now       func() time.Time
	log       *slog.Logger
	days      int
	maxBytes  int64
	freeSpace func() (uint64, error)
	minFree   uint64

	// stored is the stored total as the committer's open transaction
	// sees it (no other writer can change it meanwhile), when known; only
	// the committer uses it.
	stored      int64
	storedKnown bool
	// overCap: the last room made left the history above its cap (only
	// live notes' newest versions were left), already logged, at overAt;
	// only the committer uses them.
	overCap bool
	overAt  time.Time
	// retainedAt is when the retention was last applied (unix ns), by
	// Prune or by makeRoom.
	retainedAt atomic.Int64

	// room sums up the room made under the cap since the history was
	// opened, for the console's Status page.
	roomMu sync.Mutex
	room   HistoryRoom

	// calls counts the Keep calls committed, each counted after its
	// commit is (so that tests can wait for commits to be counted).
	calls atomic.Uint64

	// queue hands Keep calls to the committer (commitLoop); quit stops
	// it and stopped says it has.
	queue         chan *keepReq
	quit, stopped chan struct{}
}

// OpenHistory opens (creating if needed) history.db in dir, with the same
// folder and file modes as the state database (0700, 0600).
func OpenHistory(ctx context.Context, dir string, opts HistoryOptions) (*HistoryDB, error) {
	db, file, err := openFile(dir, HistoryFileName, historyDSN)
	if err != nil {
		return nil, fmt.Errorf("open note history: %w", err)
	}
	h := &HistoryDB{
		db:        db,
		file:      file,
		now:       opts.Now,
		log:       opts.Logger,
		days:      opts.Days,
		maxBytes:  opts.MaxBytes,
		freeSpace: opts.FreeSpace,
		minFree:   opts.MinFree,
		queue:     make(chan *keepReq),
		quit:      make(chan struct{}),
		stopped:   make(chan struct{}),
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.days <= 0 {
		h.days = DefaultHistoryDays
	}
	if h.maxBytes <= 0 {
		h.maxBytes = DefaultHistoryMaxBytes
	}
	sub := opts.migrations
	if sub == nil {
		if sub, err = fs.Sub(historyFiles, "historydb"); err != nil {
			db.Close()
			return nil, fmt.Errorf("open note history: %w", err)
		}
	}
	// Like cortex.db, history.db is copied to history.db.before-N before
	// an upgrade changes its schema.
	if err := retryBusy(ctx, func() error { return migrateKeeping(ctx, db, sub, h.now, h.file) }); err != nil {
		db.Close()
		if damaged(err) {
			return nil, fmt.Errorf("open note history: %s: %w (%v)", file, ErrDamaged, err)
		}
		return nil, fmt.Errorf("open note history: %w", err)
	}
	// The files exist now; their names must survive a power cut too.
	if err := syncPath(filepath.Dir(file)); err != nil {
		db.Close()
		return nil, fmt.Errorf("open note history: %w", err)
	}
	for _, s := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&h.blobByHash, `SELECT id FROM blobs WHERE hash = ?`},
		{&h.lastVersion, `SELECT blob, gone, owner FROM versions WHERE path = ? ORDER BY id DESC LIMIT 1`},
		{&h.lastWithHash, `SELECT v.blob, v.gone, b.hash FROM versions v JOIN blobs b ON b.id = v.blob
			WHERE v.path = ? ORDER BY v.id DESC LIMIT 1`},
		{&h.insertBlob, `INSERT INTO blobs (hash, size, stored, data) VALUES (?, ?, ?, ?) RETURNING id`},
		{&h.insertVersion, `INSERT INTO versions (path, version, blob, time, writer, kind, gone, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`},
		{&h.ownerOf, `SELECT owner FROM versions WHERE blob = ? LIMIT 1`},
		{&h.storedTotal, `SELECT stored FROM totals WHERE one = 1`},
	} {
		if *s.dst, err = db.PrepareContext(ctx, s.query); err != nil {
			db.Close()
			return nil, fmt.Errorf("open note history: %w", err)
		}
	}
	h.wal = newWALSync(file)
	go h.commitLoop()
	return h, nil
}

// historyDSN is the state database's DSN with synchronous=NORMAL: a commit
// writes its WAL frames without waiting for the disk, and Keep then syncs
// the WAL itself, outside SQLite's write lock, so that concurrent writers'
// syncs overlap instead of queueing behind one another. Until that sync
// returns, Keep has not returned, and the note is not replaced.
func historyDSN(path string) string {
	// A 256 KiB page cache a connection, not SQLite's 2 MB: history is
	// written far more than read, and the first copy of the notes filled
	// the default caches (10k notes: RSS 49.9 → 45.3 MB after that copy).
	return dsnWith(path, "NORMAL", "cache_size(-256)")
}

// Close stops the committer and releases the database. Keep calls made
// after it fail.
func (h *HistoryDB) Close() error {
	close(h.quit)
	<-h.stopped
	for _, s := range []*sql.Stmt{h.blobByHash, h.lastVersion, h.lastWithHash, h.insertBlob, h.insertVersion, h.storedTotal, h.ownerOf} {
		s.Close()
	}
	return h.db.Close()
}

// Keep is one version to store.
type Keep struct {
	Path    string
	Content []byte
	Writer  string
	Kind    string
	// Gone marks that the note left Path after this version (deleted, or
	// moved away). A Gone item with nil Content repeats the path's last
	// stored content.
	Gone bool
	// Observed marks a version cortex saw rather than wrote (the content a
	// write replaces, an outside change): it is skipped when the path's
	// last version already holds the same bytes.
	Observed bool
	Time     time.Time // zero: now
}

// NoteVersion describes one stored version.
type NoteVersion struct {
	ID      int64
	Path    string
	Version string
	Time    time.Time
	Writer  string
	Kind    string
	Gone    bool
	Size    int64 // uncompressed bytes
}

// prepared is one Keep item made ready outside the transaction.
type prepared struct {
	hash  []byte
	data  []byte // compressed
	size  int
	reuse bool // Gone without content: repeat the last blob
	// owner is the writer the text is charged to, once known: whoever
	// stored it first (versions.owner).
	owner  string
	blobID int64
	// same: an Observed item the path's last version already holds (as
	// findBlobs saw it), to skip unless this call writes the path first.
	same bool
}

// keepReq is one Keep call waiting for the committer.
type keepReq struct {
	items []Keep
	ps    []prepared
	ids   []int64
	err   error
	seq   uint64 // the commit that stored it
	// room is what this call dropped to make room, reported once its
	// transaction is committed.
	room roomMade
	done chan struct{}
}

// maxBatch bounds the Keep calls one transaction carries.
const maxBatch = 64

// Keep stores the items durably, all or none, and returns the id of each
// row added (0 for an item skipped as already stored). When the versions
// cannot be stored (size cap, disk floor, database error) nothing is
// stored and the caller must not make the change they preserve.
//
// Hashing and compressing happen in the caller, with no lock held; the
// rows are written by one committer, which puts the Keep calls that
// arrive while it commits into its next transaction; and one sync of the
// WAL after a commit makes every commit before it durable, so concurrent
// writers share their syncs too (walSync).
func (h *HistoryDB) Keep(ctx context.Context, items []Keep) ([]int64, error) {
	req, err := prepare(items)
	if err != nil {
		return nil, err
	}
	select {
	case h.queue <- req:
	case <-h.quit:
		return nil, errors.New("keep note version: the history is closed")
	}
	<-req.done
	if req.err != nil {
		return nil, req.err
	}
	for _, id := range req.ids {
		if id != 0 {
			if err := h.wal.upTo(req.seq); err != nil {
				// The rows are committed but not known durable, and the
				// caller will not make the change: drop them, so that no
				// version the note never had is listed.
				if derr := h.Drop(context.WithoutCancel(ctx), req.ids); derr != nil {
					h.log.Warn("note history: versions of a failed keep stay listed", "err", derr)
				}
				return nil, fmt.Errorf("keep note version: sync: %w", err)
			}
			break
		}
	}
	return req.ids, nil
}

// prepare hashes and compresses a Keep call's items for the committer.
func prepare(items []Keep) (*keepReq, error) {
	req := &keepReq{items: items, ps: make([]prepared, len(items)), done: make(chan struct{})}
	for i, it := range items {
		if it.Path == "" || it.Kind == "" {
			return nil, errors.New("keep note version: path and kind are required")
		}
		p := &req.ps[i]
		if it.Content == nil && it.Gone {
			p.reuse = true
			continue
		}
		sum := sha256.Sum256(it.Content)
		p.hash, p.size = sum[:], len(it.Content)
		// A version cortex saw (the text a write replaces) is nearly
		// always stored already: the committer compresses it in the rare
		// case it is not. A new text is compressed here, with no lock
		// held; the committer looks up whether it is stored anyway.
		if it.Observed {
			continue
		}
		var err error
		if p.data, err = deflate(it.Content); err != nil {
			return nil, fmt.Errorf("keep note version: %w", err)
		}
	}
	return req, nil
}

// commitLoop is the committer: it takes a Keep call, gathers the others
// waiting, and stores them all in one transaction.
func (h *HistoryDB) commitLoop() {
	defer close(h.stopped)
	for {
		var batch []*keepReq
		select {
		case r := <-h.queue:
			batch = append(batch, r)
		case <-h.quit:
			return
		}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-h.queue:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		h.commit(batch)
	}
}

// commit stores a batch in one transaction; one refused call (the disk
// floor) leaves the others stored.
func (h *HistoryDB) commit(batch []*keepReq) {
	ctx := context.Background()
	defer func() {
		for _, r := range batch {
			close(r.done)
		}
	}()
	failAll := func(err error) {
		for _, r := range batch {
			r.ids, r.err = nil, fmt.Errorf("keep note version: %w", err)
		}
	}
	h.storedKnown = false
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		failAll(err)
		return
	}
	defer tx.Rollback()
	// Calls are stored without savepoints first: nearly always every one
	// succeeds. When one fails, the batch starts over, each call under a
	// savepoint of its own.
	failed := false
	for _, r := range batch {
		if r.ids, r.err = h.keepIn(ctx, tx, r); r.err != nil {
			failed = true
			break
		}
	}
	if failed && len(batch) == 1 {
		batch[0].ids = nil
		return
	}
	if failed {
		h.storedKnown = false
		if err := tx.Rollback(); err != nil {
			failAll(err)
			return
		}
		if tx, err = h.db.BeginTx(ctx, nil); err != nil {
			failAll(err)
			return
		}
		defer tx.Rollback()
		if err := h.keepEach(ctx, tx, batch); err != nil {
			failAll(err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		failAll(err)
		return
	}
	seq := h.wal.commit()
	var room roomMade
	for _, r := range batch {
		r.seq = seq
		if r.err == nil {
			room.add(r.room)
		}
	}
	h.reportRoom(room)
	h.calls.Add(uint64(len(batch)))
}

// keepEach stores each call of batch in tx under a savepoint of its own,
// so that a call that fails (its err set, no ids) leaves the others
// stored. An error means the transaction is in an unknown state.
func (h *HistoryDB) keepEach(ctx context.Context, tx *sql.Tx, batch []*keepReq) error {
	for _, r := range batch {
		r.ids, r.err = nil, nil
		if _, err := tx.ExecContext(ctx, `SAVEPOINT keep`); err != nil {
			r.err = fmt.Errorf("keep note version: %w", err)
			continue
		}
		if r.ids, r.err = h.keepIn(ctx, tx, r); r.err != nil {
			r.ids = nil
			h.storedKnown = false
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO keep`); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE keep`); err != nil {
			return err
		}
	}
	return nil
}

// keepIn writes one Keep call's rows in tx.
func (h *HistoryDB) keepIn(ctx context.Context, tx *sql.Tx, r *keepReq) ([]int64, error) {
	// Copies: a retry of the batch must not see this one's blob ids.
	ps := slices.Clone(r.ps)
	r.room = roomMade{}
	for {
		need, err := h.findBlobs(ctx, tx, r.items, ps)
		if err != nil {
			return nil, err
		}
		if need == 0 {
			break
		}
		if err := h.checkFloor(need); err != nil {
			return nil, err
		}
		dropped, err := h.makeRoom(ctx, tx, need, &r.room)
		if err != nil {
			return nil, err
		}
		if dropped == 0 {
			break
		}
		// A blob found above may have gone with the dropped versions:
		// look again (and make more room if so).
	}
	var err error
	ids := make([]int64, len(r.items))
	wrote := map[string]bool{} // paths this call added a version to
	for i, it := range r.items {
		p := &ps[i]
		if p.same && !wrote[it.Path] {
			continue // seen as it was last kept
		}
		var last struct {
			blob  int64
			gone  bool
			owner string
			ok    bool
		}
		// Only a repeat of the last content, and a version cortex saw
		// rather than wrote, depend on the path's last version.
		if p.reuse || it.Observed {
			err := tx.StmtContext(ctx, h.lastVersion).QueryRowContext(ctx, it.Path).
				Scan(&last.blob, &last.gone, &last.owner)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("keep note version: %w", err)
			}
			last.ok = err == nil
		}
		if p.reuse {
			if !last.ok {
				continue // nothing known of this note: nothing to mark
			}
			p.blobID, p.owner = last.blob, last.owner
		}
		if !p.reuse && p.blobID == 0 {
			err := tx.StmtContext(ctx, h.insertBlob).QueryRowContext(ctx,
				p.hash, p.size, len(p.data), p.data).Scan(&p.blobID)
			if err != nil {
				return nil, fmt.Errorf("keep note version: %w", err)
			}
			h.stored += int64(len(p.data))
			p.owner = it.Writer
			for j := i + 1; j < len(ps); j++ { // the same bytes later in this call
				if !ps[j].reuse && bytes.Equal(ps[j].hash, p.hash) {
					ps[j].blobID, ps[j].owner = p.blobID, p.owner
				}
			}
		}
		if it.Observed && last.ok && last.blob == p.blobID && last.gone == it.Gone {
			continue
		}
		if p.owner == "" { // a text stored before: charged to whoever stored it
			err := tx.StmtContext(ctx, h.ownerOf).QueryRowContext(ctx, p.blobID).Scan(&p.owner)
			if errors.Is(err, sql.ErrNoRows) {
				p.owner = it.Writer
			} else if err != nil {
				return nil, fmt.Errorf("keep note version: %w", err)
			}
		}
		at := it.Time
		if at.IsZero() {
			at = h.now()
		}
		version := ""
		if p.reuse {
			if version, err = h.versionOf(ctx, tx, p.blobID); err != nil {
				return nil, err
			}
		} else {
			version = hex.EncodeToString(p.hash[:6])
		}
		err = tx.StmtContext(ctx, h.insertVersion).QueryRowContext(ctx,
			it.Path, version, p.blobID, nanos(at), it.Writer, it.Kind, it.Gone, p.owner).Scan(&ids[i])
		if err != nil {
			return nil, fmt.Errorf("keep note version: %w", err)
		}
		wrote[it.Path] = true
	}
	return ids, nil
}

// findBlobs sets the blob id of each item whose bytes are stored (0 for
// the others, compressing those not compressed yet) and returns the
// compressed bytes the others need.
func (h *HistoryDB) findBlobs(ctx context.Context, tx *sql.Tx, items []Keep, ps []prepared) (need int64, err error) {
	for i := range ps {
		p := &ps[i]
		if p.reuse {
			continue
		}
		p.blobID, p.same, p.owner = 0, false, ""
		if items[i].Observed {
			// Usually the text a write replaces, which the path's last
			// version holds: one query answers both questions.
			var gone bool
			var hash []byte
			err := tx.StmtContext(ctx, h.lastWithHash).QueryRowContext(ctx, items[i].Path).Scan(&p.blobID, &gone, &hash)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return 0, fmt.Errorf("keep note version: %w", err)
			}
			if err == nil && gone == items[i].Gone && bytes.Equal(hash, p.hash) {
				p.same = true
				continue
			}
			p.blobID = 0
		}
		err := tx.StmtContext(ctx, h.blobByHash).QueryRowContext(ctx, p.hash).Scan(&p.blobID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if p.data == nil {
				if p.data, err = deflate(items[i].Content); err != nil {
					return 0, fmt.Errorf("keep note version: %w", err)
				}
			}
			need += int64(len(p.data))
		case err != nil:
			return 0, fmt.Errorf("keep note version: %w", err)
		}
	}
	return need, nil
}

// checkFloor refuses need more bytes when they would take the disk under
// the free-space floor.
func (h *HistoryDB) checkFloor(need int64) error {
	if h.freeSpace == nil {
		return nil
	}
	free, err := h.freeSpace()
	if err != nil {
		return fmt.Errorf("keep note version: free space: %w", err)
	}
	// Twice the bytes: SQLite writes them to the WAL and then the file.
	if free < h.minFree || free-h.minFree < uint64(2*need) { // #nosec G115 -- need is a sum of lengths, never negative
		return ErrHistoryDiskLow
	}
	return nil
}

// versionOf is the note version of a blob: the first six bytes of its
// SHA-256 in hex, as the vault computes it.
func (h *HistoryDB) versionOf(ctx context.Context, tx *sql.Tx, blob int64) (string, error) {
	var hash []byte
	if err := tx.QueryRowContext(ctx, `SELECT hash FROM blobs WHERE id = ?`, blob).Scan(&hash); err != nil {
		return "", fmt.Errorf("keep note version: %w", err)
	}
	return hex.EncodeToString(hash[:6]), nil
}

// dropOrphans removes the blobs no version points at any more.
func dropOrphans(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM versions WHERE versions.blob = blobs.id)`)
	return err
}

// Drop removes the versions with the given ids (0s are ignored): the rows
// a Keep added for a change that then failed.
func (h *HistoryDB) Drop(ctx context.Context, ids []int64) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop note versions: %w", err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		if id == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM versions WHERE id = ?`, id); err != nil {
			return fmt.Errorf("drop note versions: %w", err)
		}
	}
	if err := dropOrphans(ctx, tx); err != nil {
		return fmt.Errorf("drop note versions: %w", err)
	}
	return tx.Commit()
}

// deflaters reuses compressors: each holds several hundred KiB of tables,
// too much to allocate per version.
var deflaters = sync.Pool{New: func() any {
	// BestSpeed: on a 3 KB note about a quarter of the CPU of the default
	// level, for about a fifth more bytes; a note's write waits for it.
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return w
}}

func deflate(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b)/3 + 64)
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func inflate(b []byte, size int64) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	out := make([]byte, 0, size)
	buf := bytes.NewBuffer(out)
	if _, err := io.Copy(buf, io.LimitReader(r, size+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) != size {
		return nil, errors.New("stored content has the wrong size")
	}
	return buf.Bytes(), nil
}
