package tools

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/appview"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

var shots = flag.Bool("shots", false, "write the views' screenshots to docs/images")

// hostCase is what the test host page frames: a view, the tool call it
// shows and the host context it is given.
type hostCase struct {
	HTML      string          `json:"html"`
	Arguments map[string]any  `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Context   map[string]any  `json:"context"`
}

// darkHost is a host context with a dark theme and its own colours, as a
// host passes them.
var darkHost = map[string]any{"theme": "dark", "displayMode": "inline", "styles": map[string]any{"variables": map[string]any{
	"--color-background-primary": "#15171c", "--color-text-primary": "#e8e8ea", "--font-sans": "system-ui, sans-serif"}}}

// The views in real Chromium, framed by a page that plays the host: the
// change view shows the diff with its words marked and its Undo reverts the
// note on disk through the app-only tool; a second Undo after another
// app's edit shows the conflict and changes nothing; the note view shows
// a note's markup as text. Both fit 360 px, in light and dark.
func TestViewsInBrowser(t *testing.T) {
	testkit.Chromium(t)
	h := newHTTPEnv(t)
	ui := h.dial(t, "ui-token", versions[1], true)
	other := h.dial(t, "other-token", versions[1], false)
	views := map[string]string{}
	for _, uri := range []string{appview.ChangeURI, appview.NoteURI} {
		rr, err := ui.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		views[uri] = rr.Contents[0].Text
	}
	call := func(cs *mcp.ClientSession, name string, args map[string]any) (json.RawMessage, writeOut) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res)
		var out writeOut
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return raw, out
	}
	const before = "# Garden plan\n\nSow the beans in May, two rows by the fence.\nWater daily.\n\n## Later\n\nHarvest in August.\n"
	_, c := call(ui, "create_note", map[string]any{"path": "Garden/Plan.md", "content": before})
	editArgs := map[string]any{"id": "Garden/Plan.md", "version": c.Version, "old_text": "in May, two rows", "new_text": "in June, three rows"}
	edit, _ := call(ui, "edit_note", editArgs)
	_, _ = call(ui, "create_note", map[string]any{"path": "Recipes/Soup.md",
		"content": "# Bean soup\n\nA <b>warm</b> soup. <img src=x onerror=\"document.title='owned'\"> <script>document.title='owned'</script>\n\n- beans\n- leeks\n\n```\ncook 40 min\n```\n"})
	fetched, _ := call(ui, "fetch", map[string]any{"id": "Recipes/Soup.md"})

	var current hostCase
	mux := http.NewServeMux()
	page, err := os.ReadFile(filepath.Join("testdata", "apphost.html"))
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("GET /host", func(w http.ResponseWriter, _ *http.Request) { w.Write(page) })
	mux.HandleFunc("GET /view.json", func(w http.ResponseWriter, _ *http.Request) { json.NewEncoder(w).Encode(current) })
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		// The host passes the view's call on over its own connection:
		// the app's credential.
		var p mcp.CallToolParams
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		res, err := ui.CallTool(r.Context(), &p)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	host := httptest.NewServer(mux)
	t.Cleanup(host.Close)

	tab := testkit.NewTab(t, 2*time.Minute, h.log)
	ctx := tab.Ctx
	show := func(what string, hc hostCase, ready string) {
		t.Helper()
		current = hc
		tab.Do(what, chromedp.EmulateViewport(360, 740), chromedp.Navigate(host.URL+"/host"))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`ready && !!document.getElementById("view").contentDocument.querySelector(`+fmt.Sprintf("%q", ready)+`)`)); err != nil {
			t.Fatalf("%s: the view did not render: %v", what, err)
		}
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(d){return d.documentElement.scrollWidth > 360})(document.getElementById("view").contentDocument)`))
		if wide {
			t.Errorf("%s: the view is wider than 360 px", what)
		}
	}
	inView := func(expr string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(d){return `+expr+`})(document.getElementById("view").contentDocument)`))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		if !*shots {
			return
		}
		b, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#view")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "images", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	show("the change view", hostCase{HTML: views[appview.ChangeURI], Arguments: editArgs, Result: edit,
		Context: map[string]any{"theme": "light", "displayMode": "inline"}}, "#undo")
	text := inView(`d.getElementById("view").innerText`)
	for _, want := range []string{"Garden plan", "Garden/Plan.md", "edit by phone", "+1 \u22121 lines", "Undo this change"} {
		if !strings.Contains(text, want) {
			t.Errorf("the change view lacks %q:\n%s", want, text)
		}
	}
	if marks := inView(`Array.from(d.querySelectorAll("mark")).map(function(m){return m.textContent}).join(",")`); marks != "May,two,June,three" {
		t.Errorf("marked words %q", marks)
	}
	shot("mcp-app-change-light.png")
	inView(`(d.getElementById("undo").click(), "")`)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`/Undone/.test(document.getElementById("view").contentDocument.getElementById("msg").textContent)`)); err != nil {
		t.Fatalf("undo did not finish: %v; the view says %q", err, inView(`d.getElementById("msg").textContent`))
	}
	if got := h.disk(t, "Garden/Plan.md"); got != before {
		t.Errorf("after Undo the note is %q", got)
	}
	if last := h.j.all()[len(h.j.all())-1]; last.Tool != "undo" || last.App != "phone" || last.NewVersion != c.Version {
		t.Errorf("the journal's last entry is %+v", last)
	}

	// The app edits again, another app edits after it: Undo is refused.
	edit2, _ := call(ui, "edit_note", editArgs)
	call(other, "append", map[string]any{"id": "Garden/Plan.md", "text": "Compost in October.\n"})
	now := h.disk(t, "Garden/Plan.md")
	show("the change view, dark", hostCase{HTML: views[appview.ChangeURI], Arguments: editArgs, Result: edit2, Context: darkHost}, "#undo")
	shot("mcp-app-change-dark.png")
	if bg := inView(`getComputedStyle(d.body).backgroundColor`); bg != "rgb(21, 23, 28)" {
		t.Errorf("the host's background variable was not used: %s", bg)
	}
	inView(`(d.getElementById("undo").click(), "")`)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`/changed after/.test(document.getElementById("view").contentDocument.getElementById("msg").textContent)`)); err != nil {
		t.Fatalf("no conflict shown: %v; the view says %q", err, inView(`d.getElementById("msg").textContent`))
	}
	if link := inView(`d.querySelector("#msg a").href`); link != testURL+"/notes/Garden/Plan.md" {
		t.Errorf("the conflict links to %q", link)
	}
	if h.disk(t, "Garden/Plan.md") != now {
		t.Error("a refused Undo changed the note")
	}

	show("the note view", hostCase{HTML: views[appview.NoteURI], Arguments: map[string]any{"id": "Recipes/Soup.md"}, Result: fetched,
		Context: map[string]any{"theme": "light"}}, "article")
	shot("mcp-app-note-light.png")
	if n := inView(`d.querySelectorAll("img,b").length + "/" + d.querySelectorAll("script").length`); n != "0/1" {
		t.Errorf("the note's markup became %s elements", n)
	}
	if body := inView(`d.querySelector("article").innerText`); !strings.Contains(body, "<img src=x") || !strings.Contains(body, "cook 40 min") {
		t.Errorf("the note view shows %q", body)
	}
	if title := inView(`d.title`); title == "owned" {
		t.Error("a script from the note ran")
	}
	if link := inView(`d.querySelector(".bar a").href`); link != testURL+"/notes/Recipes/Soup.md" {
		t.Errorf("the console link is %q", link)
	}
	// Many notes built of hostile pieces, rendered as fetch renders them,
	// and markup no renderer of cortex writes: the view builds only the
	// renderer's elements, with only their classes and safe links, and
	// every "<" of the note stays text.
	var htmls []string
	for _, n := range hostileNotes(500) {
		htmls = append(htmls, string(render.NoteAt(n, testURL)))
	}
	htmls = append(htmls, `<img src=x onerror="document.title='owned'">`, `<p onclick="x()" style="color:red">p</p>`,
		`<a href="javascript:alert(1)">js</a>`, `<script>document.title='owned'</script>`, `<svg><a href="x">s</a></svg>`,
		`<p class="bad wikilink">c</p>`, `<a href="https://example.org" onclick="x()">e</a>`, `<iframe srcdoc="<p>x</p>"></iframe>`)
	cases, _ := json.Marshal(htmls)
	bad := inView(`(function(w, cases) {
		var bad = [];
		cases.forEach(function(c) {
			var div = d.createElement("div"), src = d.createElement("div");
			w.showNote(c, div);
			div.querySelectorAll("*").forEach(function(e) {
				var ok = /^(H[2-6]|P|BR|UL|OL|LI|BLOCKQUOTE|PRE|CODE|HR|STRONG|EM|TABLE|THEAD|TBODY|TR|TH|TD|SPAN)$/.test(e.tagName) &&
					Array.prototype.every.call(e.attributes, function(a) { return a.name === "class" && /^(wikilink|frontmatter|c|r)$/.test(a.value); });
				if (e.tagName === "A") ok = /^https?:\/\//.test(e.getAttribute("href")) && e.attributes.length === 3 && e.target === "_blank" && e.rel === "noopener noreferrer";
				if (!ok) bad.push(e.outerHTML.slice(0, 120));
			});
			src.textContent = new DOMParser().parseFromString(c, "text/html").body.textContent;
			if (src.textContent.split("<").length !== div.textContent.split("<").length) bad.push("lost a < in " + JSON.stringify(c).slice(0, 120));
		});
		return bad.slice(0, 5).join("\n");
	})(d.defaultView, ` + string(cases) + `)`)
	if bad != "" {
		t.Errorf("the note view let markup through:\n%s", bad)
	}
	if title := inView(`d.title`); title == "owned" {
		t.Error("a script in the note's HTML ran")
	}

	// No host theme: the page follows the system's dark scheme.
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	show("the note view, dark", hostCase{HTML: views[appview.NoteURI], Arguments: map[string]any{"id": "Recipes/Soup.md"}, Result: fetched,
		Context: map[string]any{}}, "article")
	if bg := inView(`getComputedStyle(d.body).backgroundColor`); bg != "rgb(28, 28, 30)" {
		t.Errorf("without a host theme, the dark scheme's background is %s", bg)
	}
	shot("mcp-app-note-dark.png")
}

// hostileNotes builds n notes from pieces that a renderer building markup
// from text would get wrong, in a fixed pseudo-random order.
func hostileNotes(n int) []string {
	pieces := []string{"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", `"><svg onload=alert(1)>`, "'", "&lt;b&gt;",
		"# ", "## Heading", "- ", "1. ", "* item", "```", "~~~", "---", "[link](javascript:alert(1))", "<a href=\"javascript:x\">x</a>",
		"<!--", "-->", "<style>*{}</style>", "\u202e", "é", "\t", "    code", "> quote", "| a | b |", "<iframe src=//x>", "&#60;p&#62;"}
	r := rand.New(rand.NewPCG(24, 24))
	seps := []string{"\n", " ", "", "\n\n"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		out[i] = b.String()
	}
	return out
}
