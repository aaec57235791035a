package owner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// floodSource is the i-th attacker address: IPv4 for even i, IPv6 in its
// own /48 for odd i (plus a second address in the same /48, which must
// share the bucket).
func floodSource(i, j int) string {
	if i%2 == 0 {
		return fmt.Sprintf("198.%d.%d.%d", 18+i/65536, (i/256)%256, i%256)
	}
	return fmt.Sprintf("2001:db8:%x::%x", i, j+1)
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestFloodOfWrongCodes: 6,000 wrong TOTP and recovery codes from 600
// sources behind a trusted proxy, over a minute of injected time, while the
// owner signs in with a passkey three times. The passkey logins all succeed,
// at most the global budget's worth of guesses is ever checked (so TOTP is
// not even locked), and rows and memory stay bounded.
func TestFloodOfWrongCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("flood test")
	}
	proxy := netip.MustParsePrefix("127.0.0.1/32")
	h := newHarness(t, nil)
	h.proxies = []netip.Prefix{proxy}
	ctx := context.Background()
	k := newSoftKey(t)
	ownerBrowser := h.browser("192.0.2.10:1")
	wantStatus(t, ownerBrowser.enrol(k, linkSecret(h.setup.EnrolLink)), http.StatusOK)
	rowsBefore, _ := h.st.OwnerRowCounts(ctx)
	heapBefore := heapInUse()

	const (
		sources = 600
		rounds  = 10
		workers = 4
	)
	var checked, limited, other atomic.Int64
	send := func(i, round int) {
		form := url.Values{"code": {"000000"}}
		path := "/login/totp"
		if (i+round)%3 == 0 {
			path, form = "/login/recovery", url.Values{"code": {"AAAA-BBBB-CCCC-DDDD"}}
		}
		b := h.browser("127.0.0.1:40000")
		b.Get("/login")
		form.Set("csrf", b.CSRF)
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// The client claims an address; the proxy appends the real one.
		r.Header.Set("X-Forwarded-For", "192.0.2.10, "+floodSource(i, round))
		switch resp := b.Do(r); resp.StatusCode {
		case http.StatusUnauthorized:
			checked.Add(1)
		case http.StatusTooManyRequests:
			limited.Add(1)
			if resp.Header.Get("Retry-After") == "" {
				other.Add(1)
			}
		default:
			other.Add(1)
		}
	}

	var ownerErrs []string
	var mu sync.Mutex
	for round := range rounds {
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= sources {
						return
					}
					send(i, round)
				}
			})
		}
		if round%4 == 1 {
			// The owner signs in with a passkey in the middle of the flood.
			wg.Go(func() {
				resp := ownerBrowser.loginPasskey(k)
				if resp.StatusCode != http.StatusOK {
					mu.Lock()
					ownerErrs = append(ownerErrs, fmt.Sprintf("round %d: %d %s", round, resp.StatusCode, testkit.Body(resp)))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		h.clk.Advance(6 * time.Second)
	}
	if len(ownerErrs) > 0 {
		t.Fatalf("the owner's passkey login failed during the flood: %v", ownerErrs)
	}
	if s, ok := ownerBrowser.signedIn(); !ok || s.Method != "passkey" {
		t.Fatal("owner not signed in after the flood")
	}

	total := int64(sources * rounds)
	// 10 at once plus 10 a minute over the 54 s between the first and last round.
	if maxChecked := int64(10 + 9 + 1); checked.Load() > maxChecked {
		t.Errorf("%d guesses were checked, the global budget allows at most %d", checked.Load(), maxChecked)
	}
	if checked.Load()+limited.Load() != total || other.Load() != 0 {
		t.Errorf("checked %d + limited %d != %d (other %d)", checked.Load(), limited.Load(), total, other.Load())
	}
	own, _ := h.st.Owner(ctx)
	if !own.TOTPLocked.IsZero() {
		t.Error("the flood locked TOTP")
	}
	rowsAfter, _ := h.st.OwnerRowCounts(ctx)
	for table, n := range rowsAfter {
		want := rowsBefore[table]
		if table == "owner_sessions" {
			want = 1 // the owner's own, rotated at each login
		}
		if n != want {
			t.Errorf("%s: %d rows after the flood, want %d", table, n, want)
		}
	}
	if n := h.o.code.Sources(); n > DefaultBudgets.MaxSources {
		t.Errorf("code budget remembers %d sources", n)
	}
	heapAfter := heapInUse()
	grown := int64(heapAfter) - int64(heapBefore)
	t.Logf("flood: %d wrong codes from %d sources (%d IPv4, %d IPv6 /48s); %d checked, %d refused with 429; "+
		"sources remembered %d; owner rows %v; heap %d KiB -> %d KiB (%+d KiB)",
		total, sources, sources/2, sources/2, checked.Load(), limited.Load(), h.o.code.Sources(), rowsAfter,
		heapBefore>>10, heapAfter>>10, grown>>10)
	if grown > 16<<20 {
		t.Errorf("heap grew by %d MiB during the flood", grown>>20)
	}
}

// TestFloodOfCeremonies: the owner begins a passkey login, then 2,000
// sources (half IPv4, half IPv6 /48s) begin 12 ceremonies each, far more
// than any table of open ceremonies could hold, and the owner's finish
// still succeeds: begins store nothing on the server, and the per-source
// budget refuses each source's excess.
func TestFloodOfCeremonies(t *testing.T) {
	if testing.Short() {
		t.Skip("flood test")
	}
	h, owner, k := enrolled(t)
	owner.Get("/login")
	resp := owner.postJSON("/login/passkey/begin", map[string]string{})
	wantStatus(t, resp, http.StatusOK)
	begin := decodeJSON(t, resp)
	usedBefore := h.o.ceremony.usedLen() // the enrolment's

	const sources = 2000
	var ok, limited int
	for i := range sources {
		b := h.browser(fmt.Sprintf("[%s]:1", floodSource(i, 0)))
		if strings.Contains(floodSource(i, 0), ".") {
			b.Addr = floodSource(i, 0) + ":1"
		}
		b.Get("/login")
		for range 12 {
			switch b.postJSON("/login/passkey/begin", map[string]string{}).StatusCode {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
			}
		}
		if i%500 == 0 {
			h.clk.Advance(time.Second) // the whole flood fits well inside one ceremony lifetime
		}
	}
	if ok != sources*10 || limited != sources*2 {
		t.Fatalf("ok %d limited %d; want 10 then refusals per source", ok, limited)
	}
	if n := h.o.ceremony.usedLen(); n != usedBefore {
		t.Fatalf("the flood changed the used set from %d to %d entries", usedBefore, n)
	}
	resp = owner.postJSON("/login/passkey/finish", map[string]any{"ceremony": begin["ceremony"], "credential": k.get(begin)})
	wantStatus(t, resp, http.StatusOK)
	if s, ok := owner.signedIn(); !ok || s.Method != "passkey" {
		t.Fatal("owner not signed in after the flood")
	}
	t.Logf("ceremony flood: %d begun, %d refused, nothing held on the server for them; the owner's login begun before it finished",
		ok, limited)
}
