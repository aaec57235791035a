package owner

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// TOTP parameters: the defaults every authenticator app understands.
const (
	totpPeriod = 30 * time.Second
	totpDigits = otp.DigitsSix
	// totpSkew is how many steps either side of now are accepted.
	totpSkew = 1
)

// Recovery codes are 16 characters of Crockford base32 (80 random bits),
// shown as four groups of four: "7KQ2-M9XD-3HTA-PV0C".
const (
	recoveryAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	recoveryLen      = 16
)

// randomToken returns 256 random bits as unpadded base64url.
func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hashToken is how every secret a browser or console holds (session cookie,
// recovery code, enrolment link) is stored: SHA-256, hex. They all carry at
// least 80 random bits, so a fast hash is enough.
func hashToken(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// newRecoveryCode returns one code, grouped for reading.
func newRecoveryCode() string {
	var b [recoveryLen]byte
	rand.Read(b[:])
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(recoveryAlphabet[c&31]) // 256 is a multiple of 32: no bias
	}
	return sb.String()
}

// normalizeRecoveryCode turns what a person typed into the canonical
// ungrouped form, forgiving case, spaces, dashes and the letters people
// confuse with digits. ok is false if it cannot be a recovery code.
func normalizeRecoveryCode(s string) (string, bool) {
	if len(s) > 64 {
		return "", false
	}
	var sb strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			continue
		case r == 'O':
			r = '0'
		case r == 'I' || r == 'L':
			r = '1'
		}
		if r > 127 || !strings.ContainsRune(recoveryAlphabet, r) {
			return "", false
		}
		sb.WriteRune(r)
	}
	if sb.Len() != recoveryLen {
		return "", false
	}
	return sb.String(), true
}

// hashRecoveryCode hashes a code in its canonical form.
func hashRecoveryCode(code string) (string, bool) {
	n, ok := normalizeRecoveryCode(code)
	if !ok {
		return "", false
	}
	return hashToken("recovery:" + n), true
}

// validTOTPFormat reports whether s is six ASCII digits.
func validTOTPFormat(s string) bool {
	if len(s) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// totpStep is the 30-second step that t falls in.
func totpStep(t time.Time) int64 {
	return t.Unix() / int64(totpPeriod/time.Second)
}

// matchTOTP returns the step within the skew window whose code is code, or
// false. Every candidate is computed and compared in constant time.
func matchTOTP(secret, code string, now time.Time) (int64, bool) {
	opts := totp.ValidateOpts{Period: uint(totpPeriod / time.Second), Digits: totpDigits, Algorithm: otp.AlgorithmSHA1}
	base := totpStep(now)
	var found int64
	ok := false
	for d := -totpSkew; d <= totpSkew; d++ {
		step := base + int64(d)
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*int64(totpPeriod/time.Second), 0), opts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found, ok = step, true
		}
	}
	return found, ok
}

// mac is an HMAC-SHA256 of parts under key, base64url.
func mac(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
