// Package owner is cortex's idea of its one human: the owner. It keeps the
// owner's three independent ways in (passkeys, a TOTP secret, single-use
// recovery codes), issues and checks browser login sessions, and serves the
// login and passkey-enrolment pages.
//
// Nothing here creates, replaces or resets the owner from the web: Setup,
// IssueEnrolLink and the other functions of admin.go are called only by
// `cortex admin` on the server, and the only web route that adds a factor
// needs a one-time link from `cortex admin` plus a current TOTP code.
//
// The login routes face the internet, so every attempt is paid for from
// budgets keyed by network source (TCP peer, or the right-most untrusted
// X-Forwarded-For entry behind a trusted proxy; IPv6 per /48). Code guesses
// spend a per-source and then a global budget; passkey ceremonies spend only
// a per-source one, so a flood of wrong codes can never stop a passkey login.
// A browser the owner has signed in from carries a device cookie and spends
// a code budget of its own instead, so strangers emptying the global budget
// or locking TOTP cannot keep the owner's codes out either (device.go).
// Open WebAuthn ceremonies are sealed into the browser's hands instead of
// kept in a shared table, so a flood of begins cannot push the owner's out.
// Every table and map a stranger can grow is bounded.
//
// This package never logs secrets, codes, cookies or link tokens, and reads
// the time only from the injected clock (the WebAuthn library's own expiry
// check is switched off; ceremonies expire here).
package owner
