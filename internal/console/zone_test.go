package console

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"
	"unicode"
	"unicode/utf8" // the zones, whatever the machine running the tests has
)

// setZone sets the console's time zone through the Status page's form
// and returns the result page.
func (b *browser) setZone(name string) (*http.Response, string) {
	b.h.t.Helper()
	b.get("/console/status")
	return b.act("/console/time-zone", url.Values{"zone": {name}})
}

// shown is t as the console shows it in loc: in loc, with UTC on hover.
func shown(t time.Time, loc *time.Location, layout string) string {
	u := t.UTC()
	return `<time datetime="` + u.Format("2006-01-02T15:04:05Z") + `" title="` + u.Format("2006-01-02 15:04:05") + ` UTC">` +
		t.In(loc).Format(layout+" MST") + `</time>`
}

// The Status page sets the time zone; every page then shows its times in
// it, each with the UTC time on hover and in its datetime.
func TestTimeZoneShownEverywhere(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before, "Old.md": "old\n"})
	h.Call("claude", "delete_note", map[string]any{"id": "Old.md", "version": h.Version("Old.md")})
	appEdit(h)
	at := h.journal()[0].Time
	if _, _, err := h.Store.CreateToken(context.Background(), "claude"); err != nil {
		t.Fatal(err)
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/status")
	want(t, resp, body, http.StatusOK, `id="zone-form"`, `id="zone-name" value="UTC"`, `id="zone-now">UTC<`)
	resp, body = b.get("/console/activity")
	want(t, resp, body, http.StatusOK, shown(at, time.UTC, "2006-01-02 15:04:05"), "Since (UTC)")

	resp, body = b.setZone("Asia/Kolkata")
	want(t, resp, body, http.StatusOK, `id="result-title">Time zone set`, "Asia/Kolkata (IST, UTC&#43;05:30 now)")
	if got, _ := h.Store.TimeZone(context.Background()); got != "Asia/Kolkata" {
		t.Fatalf("the store keeps %q, want Asia/Kolkata", got)
	}
	ist, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ path, layout string }{
		{"/console/activity", "2006-01-02 15:04:05"},
		{"/notes/Plan.md", "2006-01-02 15:04"},
		{"/notes/", "2006-01-02 15:04"},
		{"/console/search?q=ship", "2006-01-02 15:04"},
		{"/console/app?token=claude", "2006-01-02 15:04:05"},
		{"/console/apps", "2006-01-02 15:04"},
		{"/console/trash", "2006-01-02 15:04"},
	} {
		resp, body := b.get(p.path)
		want(t, resp, body, http.StatusOK, `title="`)
		if strings.HasPrefix(p.path, "/console/a") && p.path != "/console/apps" && !strings.Contains(body, shown(at, ist, p.layout)) {
			t.Errorf("%s does not show %s:\n%s", p.path, shown(at, ist, p.layout), body)
		}
		if strings.Contains(body, " UTC<") {
			t.Errorf("%s still shows a time in UTC:\n%s", p.path, body)
		}
		if !strings.Contains(body, " IST</time>") {
			t.Errorf("%s shows no time in IST:\n%s", p.path, body)
		}
	}
	resp, body = b.get("/console/status")
	want(t, resp, body, http.StatusOK, `id="zone-name" value="Asia/Kolkata"`, " IST</time>")
}

// A time the owner types is read in the console's zone: the same wall
// clock names different instants in different zones.
func TestSinceReadInTheZone(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	id := appEdit(h)
	at := h.journal()[0].Time
	b := h.browser()
	b.signIn()
	h.Clock.Advance(time.Minute) // a sign-in stays recent
	b.setZone("America/New_York")
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	card := `id="e` + strconv.FormatInt(id, 10) + `"`
	// A minute before the change on New York's clocks: shown.
	resp, body := b.get("/console/activity?since=" + url.QueryEscape(at.Add(-time.Minute).In(ny).Format("2006-01-02T15:04")))
	want(t, resp, body, http.StatusOK, card, "Since (America/New_York)")
	// The same wall clock as UTC's is hours later in New York: not shown.
	resp, body = b.get("/console/activity?since=" + url.QueryEscape(at.Add(-time.Minute).UTC().Format("2006-01-02T15:04")))
	want(t, resp, body, http.StatusOK, `id="no-entries"`)
	// A time with its own offset means what it says.
	resp, body = b.get("/console/activity?since=" + url.QueryEscape(at.Add(-time.Minute).UTC().Format(time.RFC3339)))
	want(t, resp, body, http.StatusOK, card)

	// The bulk undo's preview reads it in the zone too, and its form
	// carries the instant, so the zone changing before the owner confirms
	// changes nothing.
	since := at.Add(-time.Minute).In(ny).Format("2006-01-02T15:04")
	resp, body = b.get("/console/undo-app?app=claude&since=" + url.QueryEscape(since))
	wantSince := at.Add(-time.Minute).Truncate(time.Minute).UTC()
	want(t, resp, body, http.StatusOK, `data-path="Plan.md"`, `name="since" value="`+wantSince.Format(time.RFC3339)+`"`,
		"since "+shown(wantSince, ny, "2006-01-02 15:04"))
	resp, body = b.get("/console/undo-app?app=claude&since=tomorrow")
	want(t, resp, body, http.StatusBadRequest, `data-code="bad_time"`, "in America/New_York")
}

// A name the time zone database does not know is refused on the Status
// page, with what the owner typed kept and nothing changed.
func TestTimeZoneRefused(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser()
	b.signIn()
	b.setZone("Europe/Paris")
	for _, name := range []string{"", "Mars/Olympus_Mons", "europe/paris", "Local", "../../../etc/passwd", "/etc/localtime",
		"Europe/Paris\x00", strings.Repeat("A", 65), "\xff\xfe"} {
		b.get("/console/status")
		resp, body := b.post("/console/time-zone", url.Values{"zone": {name}})
		want(t, resp, body, http.StatusBadRequest, `id="zone-error" data-code="bad_time_zone"`, "Give an IANA time zone name", `aria-invalid="true"`)
		if printable(name) && !strings.Contains(body, `value="`+html.EscapeString(name)+`"`) {
			t.Errorf("%q: the form does not keep what was typed", name)
		}
		if got, _ := h.Store.TimeZone(context.Background()); got != "Europe/Paris" {
			t.Fatalf("%q changed the time zone to %q", name, got)
		}
	}
	// "utc" in any case is UTC.
	resp, body := b.setZone("utc")
	want(t, resp, body, http.StatusOK, `id="result-title">Time zone set`)
	if got, _ := h.Store.TimeZone(context.Background()); got != "UTC" {
		t.Fatalf("utc kept as %q", got)
	}
}

// The form is sent once: sent again (a double click, back and send) it
// lands on the first sending's result, marked already done.
func TestTimeZoneSentTwice(t *testing.T) {
	h := newHarness(t, nil)
	b := h.browser()
	b.signIn()
	b.get("/console/status")
	form := url.Values{"zone": {"Europe/Paris"}, "form": {h.c.out.formID()}}
	resp, _ := b.post("/console/time-zone", form)
	first := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(first, "/console/result/") {
		t.Fatalf("first sending: %d %q", resp.StatusCode, first)
	}
	resp, _ = b.post("/console/time-zone", form)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != first+"?again=1" {
		t.Fatalf("second sending: %d %q, want %s?again=1", resp.StatusCode, loc, first)
	}
	resp, body := b.get(first + "?again=1")
	want(t, resp, body, http.StatusOK, "Already done")
}

// A kept name that no longer loads shows times in UTC rather than failing
// the pages.
func TestTimeZoneUnloadableShowsUTC(t *testing.T) {
	h := newHarness(t, map[string]string{"Plan.md": before})
	appEdit(h)
	at := h.journal()[0].Time
	if err := h.Store.SetTimeZone(context.Background(), "Gone/Zone"); err != nil {
		t.Fatal(err)
	}
	b := h.browser()
	b.signIn()
	resp, body := b.get("/console/activity")
	want(t, resp, body, http.StatusOK, shown(at, time.UTC, "2006-01-02 15:04:05"))
}

// printable reports whether s is non-empty text without control characters.
func printable(s string) bool {
	return s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}
