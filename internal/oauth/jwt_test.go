package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"testing"
	"time"
)

// signer makes client assertions the way ChatGPT's connector does.
type signer struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func newSigner(t *testing.T) *signer {
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{rsa: r, ec: e}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (s *signer) jwks() string {
	ecPub, _ := s.ec.PublicKey.Bytes() // 0x04 || X || Y
	keys := []map[string]string{
		{"kty": "RSA", "kid": "r1", "use": "sig", "alg": "RS256", "n": b64(s.rsa.N.Bytes()), "e": b64(big.NewInt(int64(s.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "e1", "crv": "P-256", "x": b64(ecPub[1:33]), "y": b64(ecPub[33:])},
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	return string(b)
}

func (s *signer) sign(t *testing.T, alg, kid string, claims map[string]any) string {
	hdr, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
	body, _ := json.Marshal(claims)
	input := b64(hdr) + "." + b64(body)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch alg {
	case "RS256":
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.rsa, crypto.SHA256, sum[:])
	case "ES256":
		var r, ss *big.Int
		r, ss, err = ecdsa.Sign(rand.Reader, s.ec, sum[:])
		sig = append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
	default:
		sig = []byte("x")
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

func TestPrivateKeyJWT(t *testing.T) {
	const id = "https://example.com/oauth/client.json"
	d := newDocHost(t)
	h := newHarness(t, d.options)
	sg := newSigner(t)
	d.set("/oauth/client.json", `{"client_id":"`+id+`","client_name":"ChatGPT","redirect_uris":["https://chatgpt.com/connector_platform_oauth_redirect"],
		"token_endpoint_auth_method":"private_key_jwt","jwks_uri":"https://example.com/oauth/jwks.json"}`)
	d.set("/oauth/jwks.json", sg.jwks())
	cb := "https://chatgpt.com/connector_platform_oauth_redirect"

	n := 0
	claims := func(mod func(map[string]any)) map[string]any {
		n++
		c := map[string]any{"iss": id, "sub": id, "aud": testPublicURL + "/token", "jti": fmt.Sprint("j", n),
			"iat": h.clk.Now().Unix(), "exp": h.clk.Now().Add(5 * time.Minute).Unix()}
		if mod != nil {
			mod(c)
		}
		return c
	}
	b := h.browser("192.0.2.70:1")
	b.signIn()
	p := newPKCE("gpt")
	code := h.approve(b, authURL(id, cb, p, func(q url.Values) { q.Del("scope") }))
	st, tok := h.postForm("/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {p.verifier},
		"redirect_uri": {cb}, "client_assertion_type": {assertionType}, "client_assertion": {sg.sign(t, "RS256", "r1", claims(nil))}})
	if st != 200 || str(tok, "scope") != DefaultScope {
		t.Fatalf("exchange with an RS256 assertion: %d %v", st, tok)
	}

	replayed := sg.sign(t, "ES256", "e1", claims(nil))
	tests := []struct {
		name      string
		assertion string
		ok        bool
	}{
		{"ES256", replayed, true},
		{"jti used again", replayed, false},
		{"RS256 without kid", sg.sign(t, "RS256", "", claims(nil)), true},
		{"aud is the issuer, in an array", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["aud"] = []string{"x", testPublicURL} })), true},
		{"other aud", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["aud"] = "https://other.example/token" })), false},
		{"iss not the client", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["iss"] = "https://evil.example/c.json" })), false},
		{"sub not the client", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["sub"] = "someone" })), false},
		{"expired", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["exp"] = h.clk.Now().Add(-time.Minute).Unix() })), false},
		{"exp an hour ahead", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { c["exp"] = h.clk.Now().Add(time.Hour).Unix() })), false},
		{"no exp", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { delete(c, "exp") })), false},
		{"no jti", sg.sign(t, "RS256", "r1", claims(func(c map[string]any) { delete(c, "jti") })), false},
		{"alg none", sg.sign(t, "none", "", claims(nil)), false},
		{"HS256", sg.sign(t, "HS256", "r1", claims(nil)), false},
		{"kid of the other key", sg.sign(t, "ES256", "r1", claims(nil)), false},
		{"tampered", sg.sign(t, "RS256", "r1", claims(nil)) + "A", false},
		{"no assertion", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {str(tok, "refresh_token")}, "client_id": {id}}
			if tt.assertion != "" {
				v.Set("client_assertion_type", assertionType)
				v.Set("client_assertion", tt.assertion)
			}
			st, out := h.postForm("/token", v)
			if tt.ok && st != 200 {
				t.Fatalf("refused: %d %v", st, out)
			}
			if !tt.ok && (st != 401 || str(out, "error") != "invalid_client") {
				t.Fatalf("accepted or wrong error: %d %v", st, out)
			}
			if st == 200 {
				tok = out
			}
		})
	}
}

func FuzzVerifyAssertion(f *testing.F) {
	f.Add("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln")
	f.Add("a.b.c")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		keys, _ := parseJWKS([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
		verifyAssertion(tok, keys, "c", []string{"a"}, time.Unix(0, 0))
		unverifiedIssuer(tok)
	})
}

func FuzzParseJWKS(f *testing.F) {
	f.Add(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`)
	f.Add(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) { parseJWKS([]byte(s)) })
}
