package owner

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

func enrolled(t *testing.T) (*harness, *browser, *softKey) {
	t.Helper()
	h := newHarness(t, nil)
	k := newSoftKey(t)
	b := h.browser("192.0.2.10:1")
	wantStatus(t, b.enrol(k, linkSecret(h.setup.EnrolLink)), http.StatusOK)
	h.nextStep()
	return h, b, k
}

func TestPasskeyLoginUpdatesCountAndRefusesClones(t *testing.T) {
	h, b, k := enrolled(t)
	for i := 1; i <= 2; i++ {
		wantStatus(t, b.loginPasskey(k), http.StatusOK)
		if s, ok := b.signedIn(); !ok || s.Method != "passkey" {
			t.Fatalf("login %d: not signed in", i)
		}
	}
	keys, _ := h.st.Passkeys(context.Background())
	if keys[0].SignCount != 2 || keys[0].LastUsed.IsZero() || keys[0].Flags&0x05 != 0x05 {
		t.Fatalf("stored passkey after two logins: %+v", keys[0])
	}
	// A copy of the key whose counter lags behind is refused.
	k.count = 1
	c := h.browser("192.0.2.11:1")
	resp := c.loginPasskey(k)
	wantStatus(t, resp, http.StatusUnauthorized)
	if _, ok := c.signedIn(); ok {
		t.Fatal("clone signed in")
	}
	keys, _ = h.st.Passkeys(context.Background())
	if keys[0].SignCount != 2 {
		t.Fatalf("clone changed the stored counter to %d", keys[0].SignCount)
	}
}

func TestPasskeyCeremonyIsSingleUseAndExpires(t *testing.T) {
	h, b, k := enrolled(t)
	b.Get("/login")
	begin := decodeJSON(t, b.postJSON("/login/passkey/begin", map[string]string{}))
	answer := k.get(begin)
	wantStatus(t, b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": answer}), http.StatusOK)
	// Replaying the same answer fails: the ceremony is gone.
	b.Get("/login")
	resp := b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": answer})
	wantStatus(t, resp, http.StatusBadRequest)
	if m := decodeJSON(t, resp); m["error"] != "ceremony_expired" {
		t.Fatalf("replay: %v", m)
	}

	// A ceremony begun in one browser cannot be finished in another.
	begin = decodeJSON(t, b.postJSON("/login/passkey/begin", map[string]string{}))
	other := h.browser("192.0.2.99:1")
	other.Get("/login")
	wantStatus(t, other.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": k.get(begin)}), http.StatusBadRequest)

	// Expiry after five minutes, on the injected clock.
	begin = decodeJSON(t, b.postJSON("/login/passkey/begin", map[string]string{}))
	h.clk.Advance(ceremonyTTL)
	wantStatus(t, b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": k.get(begin)}), http.StatusBadRequest)

	// Garbage is a clear 400, not a panic.
	for _, body := range []any{map[string]any{"ceremony": 5}, map[string]any{"ceremony": "x", "credential": "nope"}} {
		resp := b.postJSON("/login/passkey/finish", body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("garbage %v: %d", body, resp.StatusCode)
		}
	}
}

func TestCeremonySeal(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	cs := newCeremonies(key)
	now := time.Unix(1_750_000_000, 0)
	c := ceremony{Kind: kindLogin, Bind: bindHash("csrf-a"), Expires: now.Add(ceremonyTTL).UnixNano(),
		Data: webauthn.SessionData{Challenge: "challenge-1", RelyingPartyID: "cortex.example"}}
	sealed, err := cs.seal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := cs.open(sealed, kindLogin, "csrf-a", now)
	if !ok || got.Data.Challenge != "challenge-1" || got.Data.RelyingPartyID != "cortex.example" {
		t.Fatalf("open: ok=%v %+v", ok, got)
	}
	payload, sum, _ := strings.Cut(sealed, ".")
	forged, _ := json.Marshal(ceremony{Kind: kindEnrol, Bind: c.Bind, Expires: c.Expires, Data: c.Data, LinkHash: "x"})
	other, _ := newCeremonies(bytes.Repeat([]byte{8}, 32)).seal(c)
	refused := []struct {
		name   string
		sealed string
		kind   ceremonyKind
		csrf   string
		at     time.Time
	}{
		{"other browser", sealed, kindLogin, "csrf-b", now},
		{"other kind", sealed, kindEnrol, "csrf-a", now},
		{"expired", sealed, kindLogin, "csrf-a", now.Add(ceremonyTTL)},
		{"other key", other, kindLogin, "csrf-a", now},
		{"payload changed", base64.RawURLEncoding.EncodeToString(forged) + "." + sum, kindEnrol, "csrf-a", now},
		{"no seal", payload, kindLogin, "csrf-a", now},
		{"empty", "", kindLogin, "csrf-a", now},
		{"garbage", "!!.??", kindLogin, "csrf-a", now},
		{"huge", strings.Repeat("a", maxSealedCeremony) + "." + sum, kindLogin, "csrf-a", now},
	}
	for _, tc := range refused {
		if _, ok := cs.open(tc.sealed, tc.kind, tc.csrf, tc.at); ok {
			t.Errorf("%s: opened", tc.name)
		}
	}

	// Single use, once verified; the entry lives until the ceremony expires.
	if !cs.spend(got, now) {
		t.Fatal("first spend refused")
	}
	if cs.spend(got, now.Add(time.Minute)) {
		t.Fatal("second spend of the same ceremony accepted")
	}
	late := got
	late.Data.Challenge, late.Expires = "challenge-2", now.Add(2*ceremonyTTL).UnixNano()
	if !cs.spend(late, now.Add(ceremonyTTL)) || cs.usedLen() != 1 {
		t.Fatalf("used set holds %d once the first ceremony expired, want only the new one", cs.usedLen())
	}
	// The used set is bounded; full of live entries, it refuses.
	for i := range maxUsedCeremonies + 5 {
		d := got
		d.Data.Challenge = fmt.Sprint("c", i)
		d.Expires = now.Add(time.Hour).UnixNano()
		ok := cs.spend(d, now)
		if want := i < maxUsedCeremonies-1; ok != want {
			t.Fatalf("spend %d: %v, want %v", i, ok, want)
		}
	}
	if cs.usedLen() != maxUsedCeremonies {
		t.Fatalf("used set holds %d, cap %d", cs.usedLen(), maxUsedCeremonies)
	}
}

func TestEnrolNeedsLinkAndTOTP(t *testing.T) {
	h := newHarness(t, nil)
	link := linkSecret(h.setup.EnrolLink)
	k := newSoftKey(t)
	b := h.browser("192.0.2.10:1")
	b.Get("/enrol")
	// The link alone, with a wrong code, is useless.
	wrong := "000000"
	if wrong == h.code() {
		wrong = "111111"
	}
	resp := b.postJSON("/enrol/passkey/begin", map[string]string{"link": link, "code": wrong})
	wantStatus(t, resp, http.StatusUnauthorized)
	// A right code with a made-up link is useless too.
	resp = b.postJSON("/enrol/passkey/begin", map[string]string{"link": randomToken(), "code": h.code()})
	wantStatus(t, resp, http.StatusForbidden)
	if m := decodeJSON(t, resp); m["error"] != "bad_enrol_link" {
		t.Fatalf("made-up link: %v", m)
	}
	// Both: works once.
	wantStatus(t, b.enrol(k, link), http.StatusOK)
	h.nextStep()
	wantStatus(t, b.enrol(newSoftKey(t), link), http.StatusForbidden)
	keys, _ := h.st.Passkeys(context.Background())
	if len(keys) != 1 {
		t.Fatalf("%d passkeys, want 1", len(keys))
	}
	// An expired link.
	link2, _, err := IssueEnrolLink(context.Background(), h.st, config.MustParsePublicURL(testPublicURL), h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(EnrolLinkTTL)
	h.nextStep()
	wantStatus(t, b.enrol(newSoftKey(t), linkSecret(link2)), http.StatusForbidden)
}

func TestPasskeysOffWithIPAddress(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PublicURL = config.MustParsePublicURL("http://192.0.2.1:8080") })
	b := h.browser("192.0.2.10:1")
	body := testkit.Body(b.Get("/login"))
	if want := "Passkeys are off"; !strings.Contains(body, want) {
		t.Fatalf("login page does not say %q", want)
	}
	wantStatus(t, b.postJSON("/login/passkey/begin", map[string]string{}), http.StatusNotFound)
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	if PasskeysEnabled(config.MustParsePublicURL("http://[2001:db8::1]:8080")) || !PasskeysEnabled(config.MustParsePublicURL("https://notes.example.org")) {
		t.Fatal("PasskeysEnabled")
	}
}
