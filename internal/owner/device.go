package owner

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// A browser the owner has signed in from carries a device cookie, so that
// strangers cannot stand between the owner and their codes. Code attempts
// otherwise spend a per-source and then a global budget, and the global one
// is shared: a handful of addresses with a few wrong codes each empty it,
// the owner's right code then gets a 429, and 50 wrong codes lock TOTP. With
// passkeys off (an IP-address public URL) that would shut the owner out of
// the web. A device pays for its attempts from its own small budget
// instead, which nobody else can spend, and may still use TOTP while the
// shared lane is locked, within a consecutive-failure cap of its own.
//
// The cookie proves only that this browser signed in before; it grants no
// access by itself (it sits next to the session cookie, which is worth far
// more), and a stolen one buys at most DeviceLockAfter guesses at
// DevicePerMinute.

const (
	deviceCookie = "__Host-cortex-device"
	// deviceTTL is how long a device cookie is good for: about the longest
	// browsers keep any cookie. Every sign-in renews it.
	deviceTTL = 400 * 24 * time.Hour
	// maxDeviceCookie bounds what is parsed: 22 + 1 + 10 + 1 + 43 bytes.
	maxDeviceCookie = 96
)

// deviceKey is the key device cookies are HMAC'd with, derived from the
// owner's TOTP secret: it survives restarts without storing anything new,
// and `cortex admin setup --force`, which replaces the secret, voids every
// device cookie along with every other factor. The derivation is one-way,
// so no number of cookies tells anything about the secret.
func deviceKey(totpSecret string) []byte {
	h := hmac.New(sha256.New, []byte(totpSecret))
	h.Write([]byte("cortex device cookie key v1"))
	return h.Sum(nil)
}

// deviceValue is the cookie value: <id>.<issued, unix seconds>.<hmac>.
func deviceValue(key []byte, id string, issued time.Time) string {
	v := id + "." + strconv.FormatInt(issued.Unix(), 10)
	return v + "." + mac(key, "device", v)
}

// parseDevice returns the id in v if v is a device cookie made with key
// that has not expired at now.
func parseDevice(key []byte, v string, now time.Time) (string, bool) {
	if len(v) > maxDeviceCookie {
		return "", false
	}
	i := strings.LastIndexByte(v, '.')
	if i < 0 || subtle.ConstantTimeCompare([]byte(v[i+1:]), []byte(mac(key, "device", v[:i]))) != 1 {
		return "", false
	}
	id, issued, ok := strings.Cut(v[:i], ".")
	secs, err := strconv.ParseInt(issued, 10, 64)
	if !ok || err != nil || len(id) != 22 {
		return "", false
	}
	if t := time.Unix(secs, 0); now.Sub(t) >= deviceTTL || t.Sub(now) > time.Hour {
		return "", false
	}
	return id, true
}

// device returns the id of r's device cookie if it carries a valid one.
// The owner is read only when there is a cookie of the right shape.
// KnownDevice reports whether r comes from a browser the owner has signed in
// with before (a valid device cookie). Other packages use it to keep the
// owner's own browser out of budgets that strangers can spend.
func (o *Owner) KnownDevice(r *http.Request) bool {
	_, ok := o.device(r)
	return ok
}

func (o *Owner) device(r *http.Request) (string, bool) {
	c, err := r.Cookie(deviceCookie)
	if err != nil || len(c.Value) > maxDeviceCookie || strings.Count(c.Value, ".") != 2 {
		return "", false
	}
	own, err := o.st.Owner(r.Context())
	if err != nil {
		return "", false
	}
	return parseDevice(deviceKey(own.TOTPSecret), c.Value, o.now())
}

// markDevice renews the browser's device cookie after a sign-in (keeping its
// id if it had a valid one, so its budget stays its own) and reopens its
// lane.
func (o *Owner) markDevice(w http.ResponseWriter, r *http.Request) {
	own, err := o.st.Owner(r.Context())
	if err != nil {
		o.log.Warn("device cookie not renewed", "err", err)
		return
	}
	key := deviceKey(own.TOTPSecret)
	now := o.now()
	id := ""
	if c, err := r.Cookie(deviceCookie); err == nil {
		id, _ = parseDevice(key, c.Value, now)
	}
	if id == "" {
		var b [16]byte
		rand.Read(b[:])
		id = base64.RawURLEncoding.EncodeToString(b[:])
	}
	o.devices.reset(id)
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookie, Value: deviceValue(key, id, now), Path: "/", MaxAge: int(deviceTTL / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
}

// spendCode pays for one code attempt of r, coming from src. A browser with
// a valid device cookie pays from its own budget alone and gets its device
// id back, unless the attempt is a TOTP code and too many of its TOTP codes
// in a row were wrong (recovery codes cannot be guessed, so they may always
// use the lane, which is how a browser reopens it); anyone else pays from
// src's budget and then the global one, and gets "".
func (o *Owner) spendCode(r *http.Request, src netip.Prefix, totp bool) (string, error) {
	if id, ok := o.device(r); ok && (!totp || o.devices.open(id)) {
		if ok, wait := o.devices.take(id); !ok {
			return "", rateLimited(wait)
		}
		return id, nil
	}
	if ok, wait := o.code.Take(src); !ok {
		return "", rateLimited(wait)
	}
	return "", nil
}

// devices holds each known device's code budget and its count of
// consecutive wrong TOTP codes, LRU-bounded. Only ids from valid cookies
// reach it, so strangers cannot add entries or push the owner's out.
// Safe for concurrent use.
type devices struct {
	rate      httpx.Rate
	lockAfter int
	now       func() time.Time

	mu    sync.Mutex // guards the states the LRU hands out
	state *httpx.LRU[string, *deviceState]
}

type deviceState struct {
	bucket   httpx.Bucket
	failures int
}

func newDevices(b Budgets, now func() time.Time) *devices {
	return &devices{rate: rate(b.DeviceBurst, b.DevicePerMinute), lockAfter: b.DeviceLockAfter,
		now: now, state: httpx.NewLRU[string, *deviceState](b.MaxDevices)}
}

// get returns id's state. d.mu must be held.
func (d *devices) get(id string) *deviceState {
	return d.state.GetOrPut(id, func() *deviceState {
		return &deviceState{bucket: httpx.FullBucket(d.rate, d.now())}
	})
}

// open reports whether id's lane is open: fewer than lockAfter wrong TOTP
// codes in a row.
func (d *devices) open(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.get(id).failures < d.lockAfter
}

// take spends one attempt of id's budget.
func (d *devices) take(id string) (bool, time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.get(id).bucket.Take(d.rate, d.now())
}

// fail counts a wrong TOTP code from id and reports whether its lane is
// now closed.
func (d *devices) fail(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.get(id)
	s.failures++
	return s.failures >= d.lockAfter
}

// reset reopens id's lane after it signed in or passed a TOTP check.
func (d *devices) reset(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.get(id).failures = 0
}

func (d *devices) len() int { return d.state.Len() }
