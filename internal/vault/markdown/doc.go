// Package markdown understands the text of cortex notes: YAML frontmatter,
// headings and sections, wiki and Markdown links and how they resolve to
// notes, inline #tags and titles. Search (its query language, folding,
// tokens and scoring) lives in package search, which builds on this one.
//
// It works on strings only. It must never open, stat or write a file: the
// vault package reads notes safely and hands their contents here. Every
// function accepts arbitrary input without panicking, and nothing here logs
// or echoes note content in errors. It must not import package search.
package markdown
