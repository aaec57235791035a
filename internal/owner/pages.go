package owner

import "embed"

//go:embed assets
var assets embed.FS

type loginData struct {
	CSRF     string
	Return   string
	Passkeys bool
	Error    string
	SignedIn bool
	Method   string
	// Reauth: the owner is signed in but asked to sign in again.
	Reauth bool
}

type enrolData struct {
	CSRF string
}

// assetTypes are the page scripts and style sheet; templates are not served.
var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}
