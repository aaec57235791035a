package vault

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

const (
	defaultInstructions = "AGENTS.md"
	defaultMaxWrite     = 1 << 20
	defaultMaxNote      = DefaultMaxNote
)

// DefaultMaxNote is the largest note cortex reads unless Options.MaxNote
// says otherwise.
const DefaultMaxNote = 8 << 20

// Vault is an open vault directory. It is safe for concurrent use.
type Vault struct {
	root      *os.Root
	beneath   *os.File // the root folder for one-call lookups (openat2), or nil
	dir       string
	home      fs.FileInfo // the opened folder, by device and inode
	homeLost  atomic.Bool // the path names another folder now (logged)
	protected []string    // folded keys of the always protected prefixes
	deny      scope.Rules // Options.Denied
	private   scope.Rules // Options.Private
	instr     string      // instructions file, vault-relative
	instrKey  string
	minFree   uint64
	freeSpace func(dir string) (uint64, error)
	maxWrite  int
	maxNote   int64
	// readBudget is the most bytes one search call reads (defaultReadBudget;
	// tests lower it).
	readBudget int64
	now        func() time.Time
	log        *slog.Logger

	locks     lockTable
	conflicts conflictCache
	meta      metaCache
	privs     privMarks // which notes are private by their frontmatter
	paths     pathMemo  // which indexed notes each scope sees by path
	instrMemo fileMemo  // the instructions file, read again only when it changes
	bufs      noteBufs  // what searches read notes into to match them
	ix        *indexer  // nil without Options.Index

	synced      func(dir string) // tests: told of every folder synced
	noRenameat2 bool             // tests: moves take their fallback
	noOpenat2   bool             // tests: reads walk the path
	history     Versions         // nil without Options.History
	bulk        func() func()    // Options.BulkRead, or nil
}

// Open opens the vault at opts.Dir, applies the defaults and removes
// temporary files left behind by an interrupted write.
func Open(opts Options) (*Vault, error) {
	if opts.Dir == "" {
		return nil, openErr("Set the vault directory in the configuration.", nil)
	}
	fi, err := os.Stat(opts.Dir)
	if err != nil {
		return nil, openErr("The vault directory cannot be opened; check that it exists and is readable.", fmt.Errorf("vault open: %w", err))
	}
	if !fi.IsDir() {
		return nil, openErr("The vault path is not a directory; point it at the folder holding the notes.", nil)
	}
	v := &Vault{
		dir:        opts.Dir,
		instr:      opts.Instructions,
		minFree:    opts.MinFree,
		freeSpace:  opts.FreeSpace,
		maxWrite:   opts.MaxWrite,
		maxNote:    opts.MaxNote,
		readBudget: defaultReadBudget,
		now:        opts.Now,
		log:        opts.Logger,
		history:    opts.History,
		bulk:       opts.BulkRead,
	}
	if faultNoHistory() {
		v.history = nil
	}
	if v.instr == "" {
		v.instr = defaultInstructions
	}
	if checkPath(v.instr) != nil {
		return nil, openErr("The instructions file must be a vault-relative path such as AGENTS.md.", nil)
	}
	v.instrKey = foldKey(v.instr)
	if v.freeSpace == nil {
		v.freeSpace = statfsFree
	}
	if v.maxWrite <= 0 {
		v.maxWrite = defaultMaxWrite
	}
	if v.maxNote <= 0 {
		v.maxNote = defaultMaxNote
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.log == nil {
		v.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, p := range alwaysProtected {
		v.protected = append(v.protected, foldKey(p))
	}
	if v.deny, err = scope.ParsePatterns(opts.Denied); err != nil {
		return nil, openErr("Every denied path must be a vault-relative pattern, such as Private/ or Journal/*.md.", err)
	}
	if v.private, err = scope.ParsePatterns(opts.Private); err != nil {
		return nil, openErr("Every private path must be a vault-relative pattern, such as Health/ or Journal/*.md.", err)
	}
	if v.isProtected(v.instr) {
		return nil, openErr("The instructions file lies in a protected folder; choose another path for it.", nil)
	}
	root, err := os.OpenRoot(opts.Dir)
	if err != nil {
		return nil, openErr("The vault directory cannot be opened; check that it exists and is readable.", fmt.Errorf("vault open root: %w", err))
	}
	v.root = root
	if v.home, err = root.Stat("."); err != nil {
		root.Close()
		return nil, openErr("The vault directory cannot be opened; check that it exists and is readable.", fmt.Errorf("vault open root: %w", err))
	}
	v.beneath = openBeneath(root)
	// A move that a crash cut in two is finished before anything reads.
	v.repairMoves(context.Background())
	if opts.Index {
		// Cleaning walks every folder, as the build does; both run in the
		// background so that serving starts at once.
		v.startIndex()
	} else {
		v.removeStrayTemps(time.Time{})
	}
	return v, nil
}

// Close stops the index and releases the vault directory.
func (v *Vault) Close() error {
	v.stopIndex()
	if v.beneath != nil {
		v.beneath.Close()
	}
	if err := v.root.Close(); err != nil {
		return fsErr("close", err)
	}
	return nil
}

// checkFree refuses writes once free space falls below the floor, so that a
// full disk can never truncate a note half way.
func (v *Vault) checkFree() *Error {
	if v.minFree == 0 {
		return nil
	}
	free, err := v.freeSpace(v.dir)
	if err != nil {
		return newErr(CodeInternal, ReasonStatfsWrite, fmt.Errorf("vault free space: %w", err))
	}
	if free < v.minFree {
		return newErr(CodeDiskLow, reasonNone, nil)
	}
	return nil
}

// checkWriteSize refuses text larger than one write may carry, and text
// that is not UTF-8.
func (v *Vault) checkWriteSize(texts ...string) *Error {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	if n > v.maxWrite {
		return errWriteTooLarge(n, v.maxWrite)
	}
	for _, t := range texts {
		if !utf8.ValidString(t) {
			// Stored as sent, it would be a note no editor shows right;
			// replaced with U+FFFD, it would not be what was sent.
			return newErr(CodeInvalidArgument, ReasonNotUTF8, nil)
		}
	}
	return nil
}

// checkResultSize refuses a write whose resulting note would be too large
// to read back.
func (v *Vault) checkResultSize(n int) *Error {
	if int64(n) > v.maxNote {
		return fail(&Error{Code: CodeNoteTooLarge, Reason: ReasonWouldGrow, Size: int64(n), Limit: v.maxNote})
	}
	return nil
}

// ctxErr turns a cancelled context into an *Error.
func ctxErr(ctx context.Context) *Error {
	if err := ctx.Err(); err != nil {
		return newErr(CodeInternal, ReasonCancelled, err)
	}
	return nil
}

// lockTable holds one lock per note, so that read-check-write sequences on
// the same note never interleave. Keys are folded paths: on case-insensitive
// file systems two spellings name the same file.
type lockTable struct {
	mu sync.Mutex
	m  map[string]*noteLock
}

type noteLock struct {
	ch   chan struct{}
	refs int
}

// lock takes the locks of all paths in a fixed order (so two multi-note
// operations cannot deadlock) and returns the function releasing them.
func (t *lockTable) lock(ctx context.Context, paths ...string) (func(), *Error) {
	keys := make([]string, len(paths))
	for i, p := range paths {
		keys[i] = foldKey(p)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)

	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[string]*noteLock)
	}
	held := make([]*noteLock, len(keys))
	for i, k := range keys {
		l := t.m[k]
		if l == nil {
			l = &noteLock{ch: make(chan struct{}, 1)}
			t.m[k] = l
		}
		l.refs++
		held[i] = l
	}
	t.mu.Unlock()

	release := func(n int) {
		for i := range n {
			<-held[i].ch
		}
		t.mu.Lock()
		for i, k := range keys {
			if held[i].refs--; held[i].refs == 0 {
				delete(t.m, k)
			}
		}
		t.mu.Unlock()
	}
	for i, l := range held {
		select {
		case l.ch <- struct{}{}:
		case <-ctx.Done():
			release(i)
			return nil, ctxErr(ctx)
		}
	}
	return func() { release(len(held)) }, nil
}
