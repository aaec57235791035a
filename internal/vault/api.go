// Package vault owns the notes on disk. It is the only code in cortex that
// opens, reads, writes, moves or trashes files under the vault directory, and
// every such operation goes through an os.Root so that nothing outside the
// vault (and no symbolic link) can ever be reached. It must never remove note
// bytes: deletes move notes to .trash/, and every change of existing text is
// checked against the version the caller read.
package vault

import (
	"github.com/cortex-mcp/cortex/internal/vault/search"

	"log/slog"
	"time"
)

// Error codes. They are stable: tools, tests and models rely on them.
const (
	CodeInvalidPath      = "invalid_path"
	CodeProtectedPath    = "protected_path"
	CodeNotFound         = "not_found"
	CodeNoteExists       = "note_exists"
	CodeNoteChanged      = "note_changed"
	CodeVersionRequired  = "version_required"
	CodeWriteTooLarge    = "write_too_large"
	CodeNoteTooLarge     = "note_too_large"
	CodeDiskLow          = "disk_low"
	CodeSectionNotFound  = "section_not_found"
	CodeSectionAmbiguous = "section_ambiguous"
	// CodeSectionHasSubsections: replacing the section would replace the
	// subsections below its heading too, and the caller did not ask for it.
	CodeSectionHasSubsections = "section_has_subsections"
	CodeNoMatch               = "no_match"
	CodeMultipleMatches       = "multiple_matches"
	CodeBadFrontmatter        = "invalid_frontmatter"
	CodeInvalidArgument       = "invalid_argument"
	CodeNotANote              = "not_a_note"
	CodeInternal              = "internal"
	// CodeVaultReplaced: the vault path names another folder than the one
	// cortex opened (a restore, a move); writes wait for a restart.
	CodeVaultReplaced = "vault_replaced"
)

// Error is what every exported vault method returns on failure. Code and
// Reason say what went wrong, and the fields after them hold the values of
// the failure, so that a caller can write its own sentence (the tools write
// theirs in terms of their tools and arguments, and carry their own
// refusals in an Error too). Message is the vault's sentence for people,
// built from the same values, that names no tool; it never contains a host
// path or note content.
type Error struct {
	Code string
	// Reason says, within Code, what exactly went wrong (a Reason*
	// constant); empty for the code's general case.
	Reason  string
	Message string
	// Version is the note's current version for CodeNoteChanged.
	Version string
	// Count is the number of matches for CodeMultipleMatches, of notes of
	// the name for CodeAmbiguousName, of keys for ReasonFrontmatterLimit.
	Count int
	// Candidates lists what the caller may choose from: the matching
	// headings (CodeSectionAmbiguous), the note's headings
	// (CodeSectionNotFound), the subsections a replacement would erase
	// (CodeSectionHasSubsections). At most 50; More counts the rest.
	Candidates []string
	More       int
	// Subject is what Reason is about, clipped to a few hundred bytes: the
	// name, block id, version or key given, a name of the path, a query
	// operator, the scope of the app. Detail is a second such value (the
	// character a name may not hold).
	Subject string
	Detail  string
	// Size and Limit are the sizes Reason compares: bytes, or KiB for
	// ReasonFrontmatterLimit.
	Size, Limit int64
	// Why is the refusal behind this one (ReasonDailyPath: why the path
	// the settings give cannot be used).
	Why *Error
	// Err is the underlying cause, for logs only.
	Err error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Key() // built by a caller, which words its own sentence
	}
	return e.Code + ": " + e.Message
}
func (e *Error) Unwrap() error { return e.Err }

// Key is where the error's sentence stands in a table of sentences:
// "code/reason", or the code alone when there is no reason.
func (e *Error) Key() string {
	if e.Reason == "" {
		return e.Code
	}
	return e.Code + "/" + e.Reason
}

// Options configures a Vault. Zero values mean the defaults noted.
type Options struct {
	Dir string
	// Denied are patterns (scope.ParseRules: Private/, Journal/*.md,
	// **/secret.md) of paths that no tool may read, write or list, for any
	// app, on top of .git/, .obsidian/ and .cortex/.
	Denied []string
	// Private are patterns of notes that are private whatever their
	// frontmatter says: hidden from every app whose scope does not include
	// private notes, as a note with private: true is.
	Private []string
	// Instructions is the vault-relative path of the instructions file
	// (default "AGENTS.md"); it is readable but never writable by tools.
	Instructions string
	// MinFree is the free-space floor in bytes below which every write is
	// refused with disk_low; 0 means no floor, as in store and backup (the
	// default of 1 GiB is config's, --min-free-mb).
	MinFree uint64
	// FreeSpace reports free bytes on the filesystem holding dir (default:
	// statfs). Tests inject it.
	FreeSpace func(dir string) (uint64, error)
	// MaxWrite is the largest content a single write may carry (default 1 MiB).
	MaxWrite int
	// MaxNote is the largest note that is read (default 8 MiB).
	MaxNote int64
	// Index keeps an in-memory search index, built in the background at
	// Open and kept fresh by file-system notifications and a periodic
	// rescan, so that search, links and recent changes need no scan of
	// the notes. Until it is built they scan, as they always do without it.
	// Changes made outside cortex reach the index within about a second.
	Index bool
	// History keeps every version cortex writes or sees; nil keeps none.
	History Versions
	// BulkRead, when set, is called as a pass that reads every note once
	// begins (the index build, the history's copy of the notes as found at
	// start), and what it returns when the pass ends. Such a pass is most
	// of the process's peak memory; what to do about that (cmd lowers the
	// collector's target during it and hands the memory back after) is
	// the process's business, not the vault's.
	BulkRead func() (done func())
	Now      func() time.Time
	Logger   *slog.Logger
}

// Note is a note as read.
type Note struct {
	Path     string // vault-relative, with '/'
	Title    string // frontmatter title, else first H1, else base name without .md
	Content  string // the whole file
	Version  string // short hash of Content
	Modified time.Time
	Size     int64
	// Frontmatter is the parsed YAML block (nil when absent or malformed).
	Frontmatter map[string]any
	// FrontmatterError describes malformed frontmatter; the note stays readable.
	FrontmatterError string
	Tags             []string // frontmatter tags plus inline #tags, without '#', deduplicated
	Aliases          []string
	// Conflicts lists Syncthing conflict copies of this note (vault-relative).
	Conflicts []string
}

// Entry is one item of a listing.
type Entry struct {
	Path  string
	IsDir bool
	// Attachment marks a file that is not a note (an image, a PDF...).
	Attachment bool
	Size       int64
	Modified   time.Time
}

// WriteResult describes a completed write.
type WriteResult struct {
	Path       string
	OldVersion string // "" when the note did not exist
	Version    string
	// Before and After are the note's text before and after the write
	// (Before "" for a new note), for saying what changed; a move or a
	// delete, which changes no text, leaves both empty.
	Before, After string
	// DryRun is set when the context asked for a dry run: every check
	// was made and nothing was written; Version is what the note would
	// have become.
	DryRun bool
}

// MoveResult describes a completed move.
type MoveResult struct {
	From, To string
	Version  string
	// Linking lists the notes with a link that resolved to the note before
	// the move and resolves to it no more.
	Linking []string
	// Rewritten holds one WriteResult per note whose links were rewritten.
	Rewritten []WriteResult
	// HiddenLinking counts the notes left linking to the old path that the
	// app may not see; HiddenRewritten are the rewrites of such notes, for
	// the journal only: an app is told how many, never which.
	HiddenLinking   int
	HiddenRewritten []WriteResult
}

// Query is a search request.
type Query struct {
	Text   string
	Folder string
	Tag    string
	Limit  int
	// Cursor continues an earlier search: pass Page.NextCursor of the
	// same query.
	Cursor string
	// MaxChars caps the characters of paths, titles and snippets of one
	// page (default 16000); the page ends early, with a cursor, when the
	// next hit would pass it.
	MaxChars int
	// Lines asks every hit to name the lines of the note that hold what
	// the query matched it by (search.HitLines), at most ten; without it
	// only the hits of line filters (task-todo: and the like) name lines.
	Lines bool
}

// Page is one page of search results.
type Page struct {
	Hits []Hit
	// NextCursor, when not empty, fetches the next page.
	NextCursor string
	// Cut is set when the search stopped before checking every note it
	// has to read to decide (text without words, exclusions, properties,
	// phrases), to stay quick: NextCursor checks the next ones.
	Cut *ScanCut
}

// ScanCut says how far a search that stopped early got.
type ScanCut struct {
	Checked    int // notes checked so far, over every page of the search
	Candidates int // notes the search has to check
	// Unindexed is set when the notes were read one by one because the
	// search index was not built when the search began (it is, seconds
	// after opening): the same search without a cursor may now use it.
	Unindexed bool
}

// Hit is one search result.
type Hit struct {
	Path     string
	Title    string
	Snippet  string
	Modified time.Time
	Score    float64
	// Lines are the lines a query's line filters (task-todo: and the
	// like) matched, at most ten; with Query.Lines, for any query, the
	// lines holding what it matched the note by. Nil when none.
	Lines []LineHit
}

// LineHit is a line of a note that a search matched: its 1-based number
// in the file and its text.
type LineHit = search.LineHit

// Link is one link found in a note.
type Link struct {
	Source string // the note containing the link
	Target string // the resolved note path, "" when unresolved
	Raw    string // the link target as written
	Line   int
}

// Links describes the links around one note.
type Links struct {
	Outgoing   []Link
	Backlinks  []Link
	Unresolved []Link
}

// Stats is a summary for `cortex admin status`.
type Stats struct {
	Notes     int
	FreeBytes uint64
}
