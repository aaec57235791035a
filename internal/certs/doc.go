// Package certs owns how cortex meets the network: the three TLS modes
// ("acme", "proxy", "off"), their validation (once, in New), and the one
// serve path of every mode: the listeners, the one http.Server setup, the
// forwarded-header policy (httpx.TrustForwarded or StripForwarded) and the
// one graceful shutdown, which ends GET streams at once and lets writes in
// flight finish within a grace.
//
//   - acme: cortex gets and renews its own certificate with ACME
//     (golang.org/x/crypto/acme/autocert). :443 answers TLS (1.2 minimum,
//     tls-alpn-01 included); :80 answers http-01 and redirects everything else
//     to https; HTTPS responses carry HSTS. Certificates are cached in the state
//     folder.
//   - proxy: plain HTTP behind a reverse proxy. X-Forwarded-For, -Proto and
//     -Host are believed only from the configured trusted proxy networks
//     (loopback when none are configured) and are removed otherwise; the
//     client address they name (right-most untrusted, at most 32 hops) is
//     the request's RemoteAddr from then on.
//   - off: plain HTTP on a loopback address only, for development.
//
// TLS lives here rather than in internal/web so that the ACME code, and the
// test that runs a real ACME server (Pebble) in-process, stay apart from the
// routes and middleware. This package knows nothing about routes, tokens or
// notes: it serves whatever handler it is given. It must never log request
// contents, tokens or private keys, and it never touches the vault.
package certs
