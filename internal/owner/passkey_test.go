package owner

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
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
	b.get("/login")
	begin := decodeJSON(t, b.postJSON("/login/passkey/begin", map[string]string{}))
	answer := k.get(begin)
	wantStatus(t, b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": answer}), http.StatusOK)
	// Replaying the same answer fails: the ceremony is gone.
	b.get("/login")
	resp := b.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": answer})
	wantStatus(t, resp, http.StatusBadRequest)

	// A ceremony begun in one browser cannot be finished in another.
	begin = decodeJSON(t, b.postJSON("/login/passkey/begin", map[string]string{}))
	other := h.browser("192.0.2.99:1")
	other.get("/login")
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

func TestCeremoniesAreBounded(t *testing.T) {
	cs := newCeremonies(8, 2)
	now := time.Unix(0, 0)
	for i := range 100 {
		src := SourceKey(netip.AddrFrom4([4]byte{198, 51, 100, byte(i % 20)}))
		cs.add(&ceremony{id: fmt.Sprint(i), kind: kindLogin, src: src, expires: now.Add(time.Minute)}, now)
	}
	if cs.len() != 8 {
		t.Fatalf("%d open ceremonies, want the cap 8", cs.len())
	}
	// Per source: a third from the same source evicts its oldest.
	cs = newCeremonies(100, 2)
	src := SourceKey(netip.MustParseAddr("198.51.100.1"))
	owner := SourceKey(netip.MustParseAddr("192.0.2.1"))
	cs.add(&ceremony{id: "owner", kind: kindLogin, src: owner, expires: now.Add(time.Minute)}, now)
	for i := range 50 {
		cs.add(&ceremony{id: fmt.Sprint(i), kind: kindLogin, src: src, expires: now.Add(time.Minute)}, now)
	}
	if cs.len() != 3 {
		t.Fatalf("%d open, want 3", cs.len())
	}
	if _, ok := cs.take("owner", kindLogin, "", now); !ok {
		t.Fatal("a flood from one source evicted another source's ceremony")
	}
	// Expired ones are swept on add.
	cs.add(&ceremony{id: "late", kind: kindLogin, src: owner, expires: now.Add(2 * time.Minute)}, now.Add(90*time.Second))
	if cs.len() != 1 {
		t.Fatalf("%d open after expiry, want 1", cs.len())
	}
}

func TestEnrolNeedsLinkAndTOTP(t *testing.T) {
	h := newHarness(t, nil)
	link := linkSecret(h.setup.EnrolLink)
	k := newSoftKey(t)
	b := h.browser("192.0.2.10:1")
	b.get("/enrol")
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
	link2, _, err := IssueEnrolLink(context.Background(), h.st, testPublicURL, h.clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	h.clk.Advance(EnrolLinkTTL)
	h.nextStep()
	wantStatus(t, b.enrol(newSoftKey(t), linkSecret(link2)), http.StatusForbidden)
}

func TestPasskeysOffWithIPAddress(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.PublicURL = "http://192.0.2.1:8080" })
	b := h.browser("192.0.2.10:1")
	body := bodyOf(b.get("/login"))
	if want := "Passkeys are off"; !strings.Contains(body, want) {
		t.Fatalf("login page does not say %q", want)
	}
	wantStatus(t, b.postJSON("/login/passkey/begin", map[string]string{}), http.StatusNotFound)
	wantStatus(t, b.loginTOTP(h.code()), http.StatusSeeOther)
	if PasskeysEnabled("http://[2001:db8::1]:8080") || !PasskeysEnabled("https://notes.example.org") {
		t.Fatal("PasskeysEnabled")
	}
}
