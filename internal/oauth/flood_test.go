package oauth

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

// flood sends n /authorize requests for client from the addresses addr(i)
// on workers goroutines, moving the clock by step each request, and checks
// every so often that the pending table stays within its caps.
func flood(t *testing.T, h *harness, client string, n, workers int, step time.Duration, addr func(i int) string) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				r := httptest.NewRequest(http.MethodGet, authURL(client, "http://127.0.0.1:9/cb", newPKCE(fmt.Sprint(i%97)), nil), nil)
				r.RemoteAddr = addr(i)
				rec := httptest.NewRecorder()
				h.mux.ServeHTTP(rec, r)
				h.clk.Advance(step)
				mu.Lock()
				statuses[rec.Code]++
				mu.Unlock()
			}
		})
	}
	for i := range n {
		next <- i
		if i%1000 == 999 {
			checkPending(t, h)
		}
	}
	close(next)
	wg.Wait()
	checkPending(t, h)
	return statuses
}

func checkPending(t *testing.T, h *harness) {
	t.Helper()
	total, per, err := h.st.PendingCounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if total > DefaultLimits.PendingTotal || per > DefaultLimits.PendingPerSource {
		t.Fatalf("pending table: %d rows, %d from one source; caps %d and %d", total, per,
			DefaultLimits.PendingTotal, DefaultLimits.PendingPerSource)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func TestAuthorizeFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("flood test")
	}
	h := newHarness(t, nil)
	client := h.dcr("flooded", "http://127.0.0.1:9/cb")
	heap0 := heapInUse()

	// Phase 1: 20,000 requests from 2,000 sources plus 10 heavy ones.
	st := flood(t, h, client, 20000, 4, 10*time.Millisecond, func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("10.%d.%d.1:1", i/2%2000/250, i/2%250)
		}
		return fmt.Sprintf("172.16.0.%d:1", i%10)
	})
	t.Logf("phase 1 statuses: %v", st)
	if st[http.StatusSeeOther] == 0 || st[http.StatusTooManyRequests] == 0 {
		t.Fatalf("flood did not both fill and hit the budgets: %v", st)
	}

	// Afterwards the owner starts connecting an app from their own address.
	h.clk.Advance(time.Minute)
	owner := h.browser("192.0.2.200:1")
	resp := owner.follow(authURL(client, "http://127.0.0.1:9/cb", newPKCE("own"), nil))
	if !strings.Contains(testkit.Body(resp), `id="totp-form"`) {
		t.Fatalf("owner not sent to sign in: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	login := owner.PostForm("/login/totp", url1("code", h.code(), "return", returnOf(t, testkit.Body(resp))))
	resp = owner.follow(login.Header.Get("Location"))
	if !strings.Contains(testkit.Body(resp), `id="consent-form"`) {
		t.Fatalf("no consent page: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	// A few addresses keep hammering while the owner reads the page.
	flood(t, h, client, 3000, 2, 10*time.Millisecond, func(i int) string { return fmt.Sprintf("172.16.1.%d:1", i%20) })
	if u := owner.decide("approve"); u.Query().Get("code") == "" {
		t.Fatalf("owner's approval after the flood: %s", u)
	}

	// Signed in, the owner's request survives even thousands of sources.
	resp = owner.follow(authURL(client, "http://127.0.0.1:9/cb", newPKCE("own2"), nil))
	if !strings.Contains(testkit.Body(resp), `id="consent-form"`) {
		t.Fatalf("no consent page: %d", resp.StatusCode)
	}
	st3 := flood(t, h, client, 5000, 4, 30*time.Millisecond, func(i int) string { return fmt.Sprintf("10.200.%d.%d:1", i/250%20, i%250) })
	if st3[http.StatusSeeOther] <= DefaultLimits.PendingTotal {
		t.Fatalf("phase 3 stored only %d requests; it must overflow the table", st3[http.StatusSeeOther])
	}
	if u := owner.decide("approve"); u.Query().Get("code") == "" {
		t.Fatalf("signed-in owner's approval after the flood: %s", u)
	}

	// Disk and memory stayed bounded.
	rows, _ := h.st.OAuthRowCounts(t.Context())
	if rows["oauth_pending"] > DefaultLimits.PendingTotal || rows["oauth_clients"] != 1 || rows["oauth_codes"] != 2 {
		t.Errorf("rows after the flood: %v", rows)
	}
	if grew := int64(heapInUse()) - int64(heap0); grew > 32<<20 {
		t.Errorf("heap grew by %d MiB", grew>>20)
	}
	// The rows live in a database file of a few hundred KiB; the WAL is
	// reused after each checkpoint, so it stays within a few checkpoints' worth.
	sizes := map[string]int64{}
	files, _ := filepath.Glob(filepath.Join(h.dir, store.FileName+"*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			sizes[filepath.Base(f)] = fi.Size()
		}
	}
	if db, wal := sizes[store.FileName], sizes[store.FileName+"-wal"]; db == 0 || db > 1<<20 || wal > 32<<20 {
		t.Errorf("state files after the flood: %v", sizes)
	}
	t.Logf("after the flood: rows %v, state files %v, limiter sources %d", rows, sizes, h.srv.authorize.Sources())
}

// A dozen addresses can spend the global /authorize budget for as long as
// they like; the owner's own browser, which signed in before (and so carries
// the device cookie), must still reach the consent page.
func TestAuthorizeBudgetSpentByStrangersSparesTheOwnersBrowser(t *testing.T) {
	h := newHarness(t, nil)
	client := h.dcr("app", "http://127.0.0.1:9/cb")
	owner := h.browser("192.0.2.200:1")
	owner.signIn()
	if _, ok := owner.Cookies["__Host-cortex-device"]; !ok {
		t.Fatalf("no device cookie after sign-in: %v", owner.Cookies)
	}
	logout := owner.PostForm("/logout", url.Values{})
	if logout.StatusCode >= 400 {
		t.Fatalf("logout: %d", logout.StatusCode)
	}
	st := flood(t, h, client, 400, 2, 0, func(i int) string { return fmt.Sprintf("10.9.0.%d:1", i%20) })
	if st[http.StatusTooManyRequests] == 0 {
		t.Fatalf("strangers did not exhaust the budgets: %v", st)
	}
	stranger := h.browser("203.0.113.9:1")
	if resp := stranger.follow(authURL(client, "http://127.0.0.1:9/cb", newPKCE("str"), nil)); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a fresh stranger was not refused while the budget is spent: %d", resp.StatusCode)
	}
	resp := owner.follow(authURL(client, "http://127.0.0.1:9/cb", newPKCE("own"), nil))
	if resp.StatusCode == http.StatusTooManyRequests || !strings.Contains(testkit.Body(resp), `id="totp-form"`) {
		t.Fatalf("the owner's browser was refused: %d", resp.StatusCode)
	}
}

// A new browser of the owner that meets the spent /authorize budget gets a
// 429 page whose link leads through sign-in and back to the same request,
// which the signed-in owner then passes.
func TestAuthorize429PageLeadsTheOwnerThroughSignIn(t *testing.T) {
	h := newHarness(t, nil)
	client := h.dcr("app", "http://127.0.0.1:9/cb")
	st := flood(t, h, client, 400, 2, 0, func(i int) string { return fmt.Sprintf("10.9.0.%d:1", i%20) })
	if st[http.StatusTooManyRequests] == 0 {
		t.Fatalf("strangers did not exhaust the budgets: %v", st)
	}
	path := authURL(client, "http://127.0.0.1:9/cb", newPKCE("own"), nil)
	b := h.browser("198.51.100.77:1") // the owner on a new device: no cookies at all
	resp := b.Get(path)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429 while the budget is spent", resp.StatusCode)
	}
	m := regexp.MustCompile(`<a href="([^"]+)" id="problem-link">`).FindStringSubmatch(testkit.Body(resp))
	if m == nil {
		t.Fatalf("the 429 page has no link to sign in:\n%s", testkit.Body(resp))
	}
	link := html.UnescapeString(m[1])
	if want := "/login?return=" + url.QueryEscape(path); link != want {
		t.Fatalf("link %q, want %q", link, want)
	}
	// Sign in through that link: the form carries the return path, and the
	// sign-in sends the browser back to /authorize, which now passes.
	login := b.Get(link)
	ret := regexp.MustCompile(`name="return" value="([^"]*)"`).FindStringSubmatch(testkit.Body(login))
	if ret == nil || html.UnescapeString(ret[1]) != path {
		t.Fatalf("the login page does not carry the return path:\n%s", testkit.Body(login))
	}
	signedIn := b.PostForm("/login/totp", url.Values{"code": {h.code()}, "return": {path}})
	if signedIn.StatusCode != http.StatusSeeOther || signedIn.Header.Get("Location") != path {
		t.Fatalf("sign-in: %d to %q, want 303 back to %q", signedIn.StatusCode, signedIn.Header.Get("Location"), path)
	}
	if resp := b.follow(path); resp.StatusCode != http.StatusOK || !strings.Contains(testkit.Body(resp), `id="consent-form"`) {
		t.Fatalf("after sign-in: %d, want the consent page:\n%s", resp.StatusCode, testkit.Body(resp))
	}
}
