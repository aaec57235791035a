package testkit

import (
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// TOTP is the code an authenticator app shows for secret at at; the test
// fails if there is none (a secret that is not base32).
func TOTP(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatalf("totp code: %v", err)
	}
	return code
}
