// Package httpx is the one home of the pieces every part of cortex's HTTP
// edge shares: the error type handlers return and its renderers (JSON-RPC,
// OAuth JSON, HTML pages), the request log line that carries each refusal's
// code, the token bucket with its keyed limiter and two-level budget, the
// bounded LRU they keep their state in, the set of once-only keys that
// refuses replays, the caps on connections per source,
// the client address rule and the one place forwarding headers are
// believed, the guard of the forms a person's browser posts (FormGuard),
// the security headers, the page layout and the compression of pages
// (Compress).
//
// It knows nothing of notes, tokens, owners or OAuth: web, owner and oauth
// build on it, never the other way round. It must never log a request body,
// a header value or a secret; what it logs of an error is the detail the
// handler chose to keep apart from what the client sees.
package httpx
