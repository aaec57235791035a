// Package testkit holds the helpers cortex's tests share: a clock moved by
// hand, the cortex binary built once per test process and a running
// `cortex serve` on a loopback port (for e2e and bench), Chromium and the
// steps browser tests take in its tab (Tab), TOTP codes, a test's files
// (WriteFiles), a windowless browser (Visitor) that keeps cookies and the
// CSRF token for tests that drive handlers without sockets, and a buffer
// safe for concurrent writers. Its sub-package notekit sets up a vault with
// history, journal and the real tools, for the tests of what builds on them.
//
// It is for tests only: only _test.go files import it (a test in
// internal/e2e checks this), and it imports no other cortex package, so
// that any package's tests, store's and vault's included, may use it.
package testkit
