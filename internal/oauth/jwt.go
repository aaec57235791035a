package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// signingAlgs are the client assertion algorithms cortex verifies.
var signingAlgs = []string{"RS256", "ES256"}

// Client assertion rules (RFC 7523 §3): a short life, one use.
const (
	maxAssertionLife = 10 * time.Minute
	assertionSkew    = 30 * time.Second
	maxAssertionLen  = 8 << 10
	maxKeys          = 16
	assertionType    = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

var errAssertion = errors.New("client assertion refused")

// jwk is one public key of a JSON Web Key Set.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

type publicKey struct {
	kid string
	alg string // RS256 or ES256
	key crypto.PublicKey
}

// parseJWKS reads the RSA (2048 bits or more) and P-256 keys of a key set;
// other keys are skipped. A set without a usable key is an error.
func parseJWKS(raw []byte) ([]publicKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("key set is not JSON: %w", err)
	}
	var out []publicKey
	for _, k := range set.Keys {
		if len(out) >= maxKeys || (k.Use != "" && k.Use != "sig") {
			continue
		}
		switch k.Kty {
		case "RSA":
			n, err1 := b64int(k.N)
			e, err2 := b64int(k.E)
			if err1 != nil || err2 != nil || n.BitLen() < 2048 || n.BitLen() > 8192 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
				continue
			}
			out = append(out, publicKey{kid: k.Kid, alg: "RS256", key: &rsa.PublicKey{N: n, E: int(e.Int64())}})
		case "EC":
			if k.Crv != "P-256" {
				continue
			}
			x, err1 := b64bytes(k.X)
			y, err2 := b64bytes(k.Y)
			if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
				continue
			}
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
			if err != nil {
				continue
			}
			out = append(out, publicKey{kid: k.Kid, alg: "ES256", key: pub})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("key set holds no RS256 or ES256 signing key")
	}
	return out, nil
}

func b64bytes(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func b64int(s string) (*big.Int, error) {
	b, err := b64bytes(s)
	if err != nil || len(b) == 0 {
		return nil, errors.New("bad number")
	}
	return new(big.Int).SetBytes(b), nil
}

// assertion is what a verified client assertion says.
type assertion struct {
	jti string
	exp time.Time
}

// audience is a JWT aud: one string or an array of them.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

// verifyAssertion checks a private_key_jwt client assertion against keys:
// RS256 or ES256 signature, iss = sub = clientID, aud naming one of auds, a
// jti, and an exp in the near future.
func verifyAssertion(token string, keys []publicKey, clientID string, auds []string, now time.Time) (assertion, error) {
	if len(token) > maxAssertionLen {
		return assertion{}, fmt.Errorf("%w: too long", errAssertion)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return assertion{}, fmt.Errorf("%w: not a signed JWT", errAssertion)
	}
	var hdr struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := decodePart(parts[0], &hdr); err != nil || !slices.Contains(signingAlgs, hdr.Alg) {
		return assertion{}, fmt.Errorf("%w: header missing or algorithm not RS256 or ES256", errAssertion)
	}
	sig, err := b64bytes(parts[2])
	if err != nil {
		return assertion{}, fmt.Errorf("%w: bad signature encoding", errAssertion)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	verified := false
	for _, k := range keys {
		if k.alg != hdr.Alg || (hdr.Kid != "" && k.kid != "" && k.kid != hdr.Kid) {
			continue
		}
		if checkSignature(k, digest[:], sig) {
			verified = true
			break
		}
	}
	if !verified {
		return assertion{}, fmt.Errorf("%w: signature does not verify with the client's keys", errAssertion)
	}
	var cl struct {
		Iss string   `json:"iss"`
		Sub string   `json:"sub"`
		Aud audience `json:"aud"`
		Exp *float64 `json:"exp"`
		Nbf *float64 `json:"nbf"`
		Jti string   `json:"jti"`
	}
	if err := decodePart(parts[1], &cl); err != nil {
		return assertion{}, fmt.Errorf("%w: claims are not JSON", errAssertion)
	}
	switch {
	case cl.Iss != clientID || cl.Sub != clientID:
		return assertion{}, fmt.Errorf("%w: iss and sub must be the client id", errAssertion)
	case !slices.ContainsFunc(cl.Aud, func(a string) bool { return slices.Contains(auds, a) }):
		return assertion{}, fmt.Errorf("%w: aud must be the token endpoint or the issuer", errAssertion)
	case cl.Jti == "" || len(cl.Jti) > 256:
		return assertion{}, fmt.Errorf("%w: jti missing", errAssertion)
	case cl.Exp == nil:
		return assertion{}, fmt.Errorf("%w: exp missing", errAssertion)
	}
	exp := time.Unix(int64(*cl.Exp), 0)
	if !now.Before(exp.Add(assertionSkew)) || exp.Sub(now) > maxAssertionLife {
		return assertion{}, fmt.Errorf("%w: expired, or exp too far ahead", errAssertion)
	}
	if cl.Nbf != nil && time.Unix(int64(*cl.Nbf), 0).After(now.Add(assertionSkew)) {
		return assertion{}, fmt.Errorf("%w: not valid yet", errAssertion)
	}
	return assertion{jti: cl.Jti, exp: exp.Add(assertionSkew)}, nil
}

func checkSignature(k publicKey, digest, sig []byte) bool {
	switch pub := k.key.(type) {
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest, sig) == nil
	case *ecdsa.PublicKey:
		if len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(pub, digest, r, s)
	}
	return false
}

func decodePart(s string, v any) error {
	b, err := b64bytes(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
