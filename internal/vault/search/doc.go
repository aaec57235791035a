// Package search owns how cortex finds notes: the query language
// (ParseQuery: words, "phrases", OR, -exclusions, tag:, path:, file:,
// [property:value], folders), folding and tokenising text, matching and
// scoring one note against a query with its snippet (Match, Confirm), and
// the in-memory index: its postings, candidates, ranking and top k.
//
// It is strings and data only. The vault feeds it: it reads the notes,
// runs the indexer goroutine and the watcher, guards the index with its
// lock and pages the results. This package must never open, stat or write
// a file, log, keep package-level mutable state, or import package vault;
// of cortex it imports only vault/markdown, for frontmatter, headings,
// tags and links. Every function accepts arbitrary input without
// panicking.
package search
