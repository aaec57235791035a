// Package e2e holds the end-to-end tests: they build the real cortex binary,
// create tokens with its admin CLI, run it on loopback and talk to it as the
// assistants do (the go-sdk streamable HTTP client, raw HTTP, the MCP
// conformance suite). It has no code of its own and must never be imported.
package e2e
