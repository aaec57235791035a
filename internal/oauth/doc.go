// Package oauth is cortex's OAuth 2.1 authorization server, following the
// MCP authorization specification: protected resource and authorization
// server metadata, clients (dynamic registration, client ID metadata
// documents, clients the owner adds with `cortex admin clients add`), /authorize with the
// owner's consent page, /token, /revoke, and the check of access tokens on
// every /mcp request.
//
// Everything a stranger can reach is bounded: pending authorization
// requests per source and in total, never-used registrations, metadata
// fetches, and every per-source map. Budgets are spent per source first and
// then from a global bucket; the signed-in owner spends none, so no flood
// can keep the owner from approving an app.
//
// Metadata documents are fetched only from public addresses on port 443:
// the dialer checks every address after DNS resolution, follows no
// redirect, and reads at most 64 KiB within 5 seconds.
//
// Secrets (codes, tokens, client secrets, request ids) are 256 random bits
// and are stored only as SHA-256 hashes; this package never logs them. SQL
// lives in internal/store; time comes from the injected clock.
package oauth
