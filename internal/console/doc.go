// Package console is the owner's web console: the note pages every search
// and fetch url points at, the activity timeline with its diffs and undo
// buttons, and the owner's other pages. Every page needs the owner's
// sign-in (internal/owner) and every POST its CSRF token; every change goes
// through internal/history, which journals it as "owner (console)".
//
// It never touches the vault's files itself (internal/vault does) and never
// writes SQL (internal/store does). Notes are rendered by a small renderer
// that escapes every character of the note and emits only the few tags it
// writes itself, so a note can never run script in the owner's browser.
package console
