package testkit

import "net/http"

// Bearer is an http.RoundTripper that sends every request with
// "Authorization: Bearer Token" through Base (http.DefaultTransport when
// nil), for MCP clients in tests.
type Bearer struct {
	Token string
	Base  http.RoundTripper
}

// RoundTrip sends a copy of r with the header set.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	base := b.Base
	if base == nil {
		base = http.DefaultTransport
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	return base.RoundTrip(r)
}
