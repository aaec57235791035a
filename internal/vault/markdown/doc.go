// Package markdown understands the text of cortex notes: YAML frontmatter,
// headings and sections, wiki and Markdown links, inline #tags, titles, and
// the folding, tokenising and scoring used by search.
//
// It works on strings only. It must never open, stat or write a file: the
// vault package reads notes safely and hands their contents here. Every
// function accepts arbitrary input without panicking, and nothing here logs
// or echoes note content in errors.
package markdown
