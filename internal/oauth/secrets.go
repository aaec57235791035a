package oauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// Secret prefixes: they tell a reader (and the /mcp authenticator, which
// sends "ctx_" bearer tokens elsewhere) what a string is.
const (
	accessPrefix  = "cxa_"
	refreshPrefix = "cxr_"
	codePrefix    = "cxc_"
	secretPrefix  = "cxs_"
	clientPrefix  = "cx_"
	secretBody    = 43 // unpadded base64url of 32 bytes
)

// newSecret is prefix + 256 random bits.
func newSecret(prefix string) string {
	var b [32]byte
	rand.Read(b[:])
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// wellFormed reports whether s looks like a secret made by newSecret(prefix),
// so that malformed input never reaches the database.
func wellFormed(s, prefix string) bool {
	if len(s) != len(prefix)+secretBody || !strings.HasPrefix(s, prefix) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(prefix):])
	return err == nil
}

// newClientID is a client id for a registered client: not a secret, but
// unguessable so that ids cannot be enumerated.
func newClientID() string {
	var b [15]byte
	rand.Read(b[:])
	return clientPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// sealSuccessor encrypts the pair issued for a refresh token with a key
// derived from that old token. Only someone holding the old token can read
// it back, so the stored blob gives a database reader nothing.
func sealSuccessor(old, access, refresh string, accessExp time.Time) []byte {
	gcm := successorAEAD(old)
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	plain := make([]byte, 8, 8+len(access)+1+len(refresh))
	binary.BigEndian.PutUint64(plain, uint64(accessExp.UnixNano()))
	plain = append(append(append(plain, access...), '\n'), refresh...)
	return gcm.Seal(nonce, nonce, plain, nil)
}

func openSuccessor(old string, sealed []byte) (access, refresh string, accessExp time.Time, err error) {
	gcm := successorAEAD(old)
	if len(sealed) < gcm.NonceSize() {
		return "", "", time.Time{}, errors.New("sealed pair too short")
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], nil)
	if err != nil || len(plain) < 8 {
		return "", "", time.Time{}, errors.New("sealed pair does not open")
	}
	access, refresh, ok := strings.Cut(string(plain[8:]), "\n")
	if !ok {
		return "", "", time.Time{}, errors.New("sealed pair malformed")
	}
	exp := int64(binary.BigEndian.Uint64(plain[:8])) // #nosec G115 -- undoes sealSuccessor's uint64(UnixNano()) bit for bit; GCM authenticated the bytes
	return access, refresh, time.Unix(0, exp), nil
}

func successorAEAD(old string) cipher.AEAD {
	key := sha256.Sum256([]byte("cortex refresh successor\x00" + old))
	block, _ := aes.NewCipher(key[:]) // a 32-byte key never fails
	gcm, _ := cipher.NewGCM(block)
	return gcm
}
