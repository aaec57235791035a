package web

import (
	_ "embed"
	"net/http"
)

// The icon browsers show in a tab: served by cortex itself, so no page
// asks another address for it, and /favicon.ico, which browsers fetch
// unasked, no longer answers 404.
var (
	//go:embed assets/favicon.svg
	faviconSVG []byte
	//go:embed assets/favicon.ico
	faviconICO []byte
)

// favicon serves one fixed icon; it changes only with a release, so
// browsers may keep it for a day.
func favicon(contentType string, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	})
}
