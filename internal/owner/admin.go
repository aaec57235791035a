package owner

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
)

// EnrolLinkTTL is how long a passkey enrolment link from `cortex admin`
// works.
const EnrolLinkTTL = 10 * time.Minute

// ErrBadPublicURL means the public URL cannot be used for login pages.
var ErrBadPublicURL = errors.New("invalid public URL")

// SetupResult is what `cortex admin setup` shows the owner, once. None of
// it can be read back later.
type SetupResult struct {
	TOTPURI       string // otpauth://totp/... for an authenticator app
	TOTPSecret    string // base32, for typing in by hand
	RecoveryCodes []string
	EnrolLink     string // empty when passkeys are off (the public URL's host is an IP address)
	EnrolExpires  time.Time
}

// Setup creates the owner: a TOTP secret, ten recovery codes and a one-time
// passkey enrolment link. Without force it refuses if an owner exists
// (store.ErrOwnerExists); with force every old factor and login session is
// replaced in one transaction. u is the public URL the server runs with
// (config parses it); now may be nil for time.Now.
func Setup(ctx context.Context, st *store.Store, u config.PublicURL, force bool, now func() time.Time) (SetupResult, error) {
	if now == nil {
		now = time.Now
	}
	if u.IsZero() {
		return SetupResult{}, fmt.Errorf("%w: none given", ErrBadPublicURL)
	}
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer:      "cortex",
		AccountName: "owner@" + u.Host(),
		Period:      uint(totpPeriod / time.Second),
		SecretSize:  20,
		Digits:      totpDigits,
		Rand:        rand.Reader,
	})
	if err != nil {
		return SetupResult{}, fmt.Errorf("make totp secret: %w", err)
	}
	codes, hashes := newRecoverySet()
	handle := make([]byte, 32)
	rand.Read(handle)
	if err := st.CreateOwner(ctx, store.NewOwner{UserHandle: handle, TOTPSecret: key.Secret(), RecoveryHashes: hashes}, force); err != nil {
		return SetupResult{}, err
	}
	res := SetupResult{TOTPURI: key.URL(), TOTPSecret: key.Secret(), RecoveryCodes: codes}
	if PasskeysEnabled(u) {
		res.EnrolLink, res.EnrolExpires, err = IssueEnrolLink(ctx, st, u, now)
		if err != nil {
			return SetupResult{}, err
		}
	}
	return res, nil
}

// IssueEnrolLink makes a one-time link, valid EnrolLinkTTL, that lets a
// browser add one passkey after also giving a current TOTP code. The secret
// travels in the URL fragment, which browsers never send to a server, so it
// shows up in no access log or proxy; the page posts it in a request body.
func IssueEnrolLink(ctx context.Context, st *store.Store, u config.PublicURL, now func() time.Time) (string, time.Time, error) {
	if now == nil {
		now = time.Now
	}
	if !PasskeysEnabled(u) {
		return "", time.Time{}, fmt.Errorf("%w: passkeys need a DNS name in the public URL, not an IP address", ErrBadPublicURL)
	}
	secret := randomToken()
	expires := now().Add(EnrolLinkTTL)
	if err := st.CreateEnrolLink(ctx, hashToken("enrol:"+secret), expires); err != nil {
		return "", time.Time{}, err
	}
	return u.JoinPath("/enrol#" + secret), expires, nil
}

// RegenerateRecoveryCodes voids every recovery code and returns ten new ones.
func RegenerateRecoveryCodes(ctx context.Context, st *store.Store) ([]string, error) {
	codes, hashes := newRecoverySet()
	if err := st.ReplaceRecoveryCodes(ctx, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

func newRecoverySet() (codes, hashes []string) {
	for range store.RecoveryCodeCount {
		c := newRecoveryCode()
		h, _ := hashRecoveryCode(c)
		codes = append(codes, c)
		hashes = append(hashes, h)
	}
	return codes, hashes
}

// PasskeysEnabled reports whether the public URL's host is a DNS name:
// WebAuthn relying-party ids cannot be IP addresses.
func PasskeysEnabled(u config.PublicURL) bool { return !u.IsZero() && !u.IsIP() }
