package owner

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// softKey is a software passkey authenticator (ES256, "none" attestation):
// enough WebAuthn to drive the passkey routes without a browser.
type softKey struct {
	t      testing.TB
	rpID   string
	origin string
	key    *ecdsa.PrivateKey
	credID []byte
	handle []byte
	count  uint32
}

func newSoftKey(t testing.TB) *softKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &softKey{t: t, rpID: "cortex.example", origin: testPublicURL, key: k, credID: id}
}

var b64 = base64.RawURLEncoding

func (k *softKey) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": k.origin, "crossOrigin": false})
	return b
}

func (k *softKey) authData(flags byte, attested []byte) []byte {
	rp := sha256.Sum256([]byte(k.rpID))
	out := append([]byte{}, rp[:]...)
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, k.count)
	return append(out, attested...)
}

func (k *softKey) coseKey() []byte {
	pub, err := k.key.PublicKey.ECDH()
	if err != nil {
		k.t.Fatal(err)
	}
	raw := pub.Bytes() // 0x04 || X || Y
	b, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: raw[1:33], -3: raw[33:65]})
	if err != nil {
		k.t.Fatal(err)
	}
	return b
}

// create answers a registration begin response.
func (k *softKey) create(begin map[string]any) map[string]any {
	pk := begin["publicKey"].(map[string]any)
	challenge := pk["challenge"].(string)
	user := pk["user"].(map[string]any)
	h, err := b64.DecodeString(user["id"].(string))
	if err != nil {
		k.t.Fatal(err)
	}
	k.handle = h
	attested := make([]byte, 16) // AAGUID zero
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(k.credID)))
	attested = append(attested, k.credID...)
	attested = append(attested, k.coseKey()...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(0x45, attested)})
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.credID), "rawId": b64.EncodeToString(k.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(k.clientData("webauthn.create", challenge)),
			"attestationObject": b64.EncodeToString(att),
			"transports":        []string{"internal"},
		},
		"clientExtensionResults": map[string]any{},
	}
}

// get answers a login begin response, counting one signature.
func (k *softKey) get(begin map[string]any) map[string]any {
	challenge := begin["publicKey"].(map[string]any)["challenge"].(string)
	k.count++
	ad := k.authData(0x05, nil)
	cd := k.clientData("webauthn.get", challenge)
	sum := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.credID), "rawId": b64.EncodeToString(k.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(cd),
			"authenticatorData": b64.EncodeToString(ad),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(k.handle),
		},
		"clientExtensionResults": map[string]any{},
	}
}

func decodeJSON(t testing.TB, resp *http.Response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(testkit.Body(resp)), &m); err != nil {
		t.Fatalf("decode %q: %v", testkit.Body(resp), err)
	}
	return m
}

// enrol adds k as a passkey through the console link of the harness setup.
func (b *browser) enrol(k *softKey, link string) *http.Response {
	b.h.t.Helper()
	b.Get("/enrol")
	resp := b.postJSON("/enrol/passkey/begin", map[string]string{"link": link, "code": b.h.code(), "name": "soft"})
	if resp.StatusCode != http.StatusOK {
		return resp
	}
	begin := decodeJSON(b.h.t, resp)
	return b.postJSON("/enrol/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": k.create(begin)})
}

// loginPasskey signs in with k; it returns the finish response (or the
// begin one if that failed).
func (b *browser) loginPasskey(k *softKey) *http.Response {
	if b.CSRF == "" {
		b.Get("/login")
	}
	resp := b.postJSON("/login/passkey/begin", map[string]string{})
	if resp.StatusCode != http.StatusOK {
		return resp
	}
	begin := decodeJSON(b.h.t, resp)
	resp = b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": k.get(begin)})
	if resp.StatusCode == http.StatusOK {
		// Like the page script: follow the redirect to a fresh page.
		b.Get(decodeJSON(b.h.t, resp)["redirect"].(string))
	}
	return resp
}

func linkSecret(link string) string {
	for i := len(link) - 1; i >= 0; i-- {
		if link[i] == '#' {
			return link[i+1:]
		}
	}
	return ""
}
