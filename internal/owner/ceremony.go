package owner

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// Open WebAuthn ceremonies are not kept on the server. A begin route hands
// the browser its ceremony as a sealed value: the session data, the kind,
// the expiry and a hash of the browser's CSRF token (so of its binding or
// session cookie), with an HMAC under a key that lives only in this
// process. The finish route takes it back, checks the seal, the kind, the
// browser and the expiry on the injected clock, and so needs no table.
//
// Why not a table: any table of open ceremonies that strangers can fill is
// shared, and a bounded one must evict someone. Whatever the eviction rule,
// enough addresses beginning ceremonies push the owner's open ceremony out
// and their finish fails, which the passkey login must never allow. A
// sealed value costs the server nothing per begin, so a flood of begins
// (already bounded per source by the passkey budget) reaches nobody else.
//
// Nothing in the seal is secret from the browser that holds it: the
// challenge, relying-party id and user handle are in the options it was
// sent, the link hash is a hash of the link it posted, and the name is its
// own input. The HMAC gives integrity, which is all the library asks for
// ("store it server-side or in a signed, opaque cookie").
//
// Single use: a ceremony is spent when its response has been verified, in
// a small used set keyed by the challenge and kept until the ceremony
// would have expired. Only a verified response enters the set, and only
// the owner can produce one (their passkey for a login; a console link and
// a current TOTP code for an enrolment), so strangers cannot fill it. A
// response that fails verification spends nothing, which gives a forger
// nothing either: the challenge still has to be signed by the owner's key.
// If the set were ever full of live entries, further finishes are refused
// (fail closed) rather than forgetting what was used.

type ceremonyKind int

const (
	kindLogin ceremonyKind = iota + 1
	kindEnrol
)

// maxSealedCeremony bounds the sealed value a finish route will look at. A
// login ceremony seals to well under 1 KiB; an enrolment one lists up to
// MaxPasskeys excluded credential ids.
const maxSealedCeremony = 16 << 10

// maxUsedCeremonies bounds the used set: that many verified ceremonies
// within one ceremony lifetime is far beyond any person signing in.
const maxUsedCeremonies = 64

// ceremony is the server's half of one WebAuthn exchange, as sealed.
type ceremony struct {
	Kind    ceremonyKind         `json:"k"`
	Bind    string               `json:"b"` // hash of the CSRF token of the browser that began it
	Expires int64                `json:"e"` // unix nanoseconds
	Data    webauthn.SessionData `json:"d"`
	// Enrolment only: the link it will consume, and the passkey's name.
	LinkHash string `json:"l,omitempty"`
	Name     string `json:"n,omitempty"`
}

// ceremonies seals and opens ceremonies and remembers which were used.
// Safe for concurrent use.
type ceremonies struct {
	key []byte

	used *httpx.OnceSet // challenges spent, until their ceremony expires
}

func newCeremonies(key []byte) *ceremonies {
	return &ceremonies{key: key, used: httpx.NewOnceSet(maxUsedCeremonies)}
}

// bindHash is what a ceremony records of the browser's CSRF token.
func bindHash(csrf string) string { return hashToken("ceremony-bind:" + csrf) }

func (cs *ceremonies) sum(payload string) string {
	h := hmac.New(sha256.New, cs.key)
	h.Write([]byte("ceremony\x00"))
	h.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// seal returns the value the browser carries from begin to finish.
func (cs *ceremonies) seal(c ceremony) (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + cs.sum(payload), nil
}

// open returns the ceremony sealed in v if the seal is ours, it is of kind,
// the browser sending csrf began it, and it has not expired at now. Nothing
// in v is parsed before its HMAC has been checked.
func (cs *ceremonies) open(v string, kind ceremonyKind, csrf string, now time.Time) (ceremony, bool) {
	if len(v) > maxSealedCeremony {
		return ceremony{}, false
	}
	payload, sum, ok := strings.Cut(v, ".")
	if !ok || subtle.ConstantTimeCompare([]byte(sum), []byte(cs.sum(payload))) != 1 {
		return ceremony{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return ceremony{}, false
	}
	var c ceremony // fresh, as the library asks: decoding over a used value keeps old extensions
	if err := json.Unmarshal(b, &c); err != nil {
		return ceremony{}, false
	}
	if c.Kind != kind || subtle.ConstantTimeCompare([]byte(c.Bind), []byte(bindHash(csrf))) != 1 ||
		c.Data.Challenge == "" || !now.Before(time.Unix(0, c.Expires)) {
		return ceremony{}, false
	}
	return c, true
}

// spend marks c used once its response has been verified. It reports false
// if c was used before (a replay) or the used set is full of live entries.
func (cs *ceremonies) spend(c ceremony, now time.Time) bool {
	// Expired entries go at once, not only when the set is full, so that
	// the set holds only ceremonies that could still be replayed.
	cs.used.Prune(now)
	fresh, room := cs.used.Use(c.Data.Challenge, time.Unix(0, c.Expires), now)
	return fresh && room
}

// usedLen reports how many ceremonies the used set holds.
func (cs *ceremonies) usedLen() int { return cs.used.Len() }
