package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

var shots = flag.Bool("shots", false, "write the MCP App views' screenshots to docs/images")

// cortex's views in a host built on the official MCP Apps host bridge,
// in real Chromium, against the real binary: the host reads the view
// with resources/read, frames it through a sandbox proxy on another
// origin, and hands it a real edit_note result; the change view shows
// the diff, and its Undo (an app-only tool the host passes on) reverts
// the note on disk byte for byte, journaled as the app's undo. After
// another app's edit, Undo shows the conflict and changes nothing. Both
// views pass axe-core in light and dark at 360 px.
func TestMCPAppInOfficialHost(t *testing.T) {
	modules := extAppsDir(t)
	axe := axeSource(t)
	testkit.Chromium(t)
	in := newInstance(t)
	in.start()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	phone := in.connectUI(ctx, in.token("phone"), "2025-11-25")
	laptop := in.connectUI(ctx, in.token("laptop"), "2025-11-25")

	tl, err := phone.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]*mcp.ReadResourceResult{}
	for _, uri := range []string{"ui://cortex/change", "ui://cortex/note"} {
		if views[uri], err = phone.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	callRaw := func(cs *mcp.ClientSession, name string, args map[string]any) (json.RawMessage, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res)
		var sc map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &sc)
		return raw, sc
	}
	const before = "# Garden plan\n\nSow the beans in May, two rows by the fence.\nWater daily.\n\n## Later\n\nHarvest in August.\n"
	_, c := callRaw(phone, "create_note", map[string]any{"path": "Garden/Plan.md", "content": before})
	editArgs := map[string]any{"id": "Garden/Plan.md", "version": c["version"], "old_text": "in May, two rows", "new_text": "in June, three rows"}
	edit, e := callRaw(phone, "edit_note", editArgs)
	// The console's address, as the tools give it out.
	view, _ := e["view"].(map[string]any)
	site := strings.TrimSuffix(str(view, "url"), "/notes/Garden/Plan.md")
	if site == "" || site == str(view, "url") {
		t.Fatalf("edit_note's view has no console link: %v", e)
	}
	noteURL := func(p string) string { return site + "/notes/" + p }
	disk := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(in.Vault, "Garden", "Plan.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	undos := func() int {
		t.Helper()
		out, errOut, err := in.admin("changes")
		if err != nil {
			t.Fatalf("changes: %v\n%s", err, errOut)
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, " phone ") && strings.Contains(line, " undo ") && strings.Contains(line, "Garden/Plan.md") {
				n++
			}
		}
		return n
	}

	// The host's page and the sandbox proxy, each on an origin of its
	// own, both on loopback.
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hostPage, sandboxPage := read("mcpapp-host.html"), read("mcpapp-sandbox.html")
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", sandboxCSP(r.URL.Query().Get("csp")))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(sandboxPage)
	}))
	t.Cleanup(sandbox.Close)
	var current hostCase
	mux := http.NewServeMux()
	mux.HandleFunc("GET /host", func(w http.ResponseWriter, _ *http.Request) { w.Write(hostPage) })
	mux.HandleFunc("GET /case.json", func(w http.ResponseWriter, _ *http.Request) { json.NewEncoder(w).Encode(current) })
	files := http.StripPrefix("/ext/", http.FileServer(http.Dir(modules)))
	mux.Handle("GET /ext/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".js") || strings.HasSuffix(r.URL.Path, ".mjs") {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		// The host passes the view's call on over its own connection,
		// with the app's credential.
		var p mcp.CallToolParams
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := phone.CallTool(r.Context(), &p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	host := httptest.NewServer(mux)
	t.Cleanup(host.Close)

	tab := testkit.NewTab(t, 3*time.Minute, in.logs)
	bctx := tab.Ctx
	// What the pages print and throw, for a failure's message; and the
	// script context of each frame's page, by frame.
	var console testkit.Buffer
	var mu sync.Mutex
	contexts := map[cdp.FrameID]runtime.ExecutionContextID{}
	chromedp.Listen(bctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExecutionContextCreated:
			var aux struct {
				FrameID   cdp.FrameID
				IsDefault bool
			}
			if json.Unmarshal([]byte(ev.Context.AuxData), &aux) == nil && aux.IsDefault {
				mu.Lock()
				contexts[aux.FrameID] = ev.Context.ID
				mu.Unlock()
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeDebug {
				return
			}
			for _, a := range ev.Args {
				fmt.Fprintf(&console, "%s %s%s\n", ev.Type, a.Value, a.Description)
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			if d.Exception != nil {
				fmt.Fprintf(&console, "exception %s %s\n", d.Text, d.Exception.Description)
			} else {
				fmt.Fprintf(&console, "exception %s\n", d.Text)
			}
		}
	})
	var world runtime.ExecutionContextID
	// inView evaluates expr in the view's page, two frames below the host's.
	inView := func(expr string, opts ...chromedp.EvaluateOption) string {
		t.Helper()
		opts = append(opts, func(p *runtime.EvaluateParams) { p.ContextID = world })
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](expr, opts...))
		if err != nil {
			t.Fatalf("in the view, %s: %v", expr, err)
		}
		return s
	}
	// until waits for cond to hold in the view, checking it at each frame
	// the view paints.
	until := func(what, cond string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[string](
			`new Promise(function (ok) { (function check() { if (`+cond+`) ok(""); else requestAnimationFrame(check); })(); })`,
			chromedp.EvalAwaitPromise, func(p *runtime.EvaluateParams) { p.ContextID = world })); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, console.String())
		}
	}
	checkAxe := func(name string) {
		t.Helper()
		var vs []axeViolation
		b := inView(`(typeof axe === "undefined" ? (0, eval)(`+jsString(axe)+`) : 0, (async () => JSON.stringify(await `+runAxe+`))())`,
			chromedp.EvalAwaitPromise)
		if err := json.Unmarshal([]byte(b), &vs); err != nil {
			t.Fatalf("%s: axe: %v", name, err)
		}
		for _, v := range vs {
			msg := fmt.Sprintf("%s: %s [%s] %s\n  %s", name, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n  "))
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
	}
	shot := func(name string) {
		t.Helper()
		if !*shots {
			return
		}
		b, err := chromedp.Run(bctx, chromedp.Screenshot(chromedp.CSS("#view")))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "images", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	show := func(what string, hc hostCase, ready string) {
		t.Helper()
		hc.Tools, hc.Sandbox = tl.Tools, sandbox.URL+"/sandbox"
		ui, _ := hc.Resource.Contents[0].Meta["ui"].(map[string]any)
		if b, err := json.Marshal(ui["csp"]); err == nil {
			hc.Sandbox += "?csp=" + url.QueryEscape(string(b))
		}
		current = hc
		tab.Do(what, chromedp.EmulateViewport(360, 740), chromedp.Navigate(host.URL+"/host"))
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[string](`window.started`, chromedp.EvalAwaitPromise)); err != nil {
			log, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`window.hostLog.join("\\n")`))
			t.Fatalf("%s: the host did not start the view: %v\n%s\nThe host got:\n%s", what, err, console.String(), log)
		}
		tree, err := chromedp.Call(bctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if f := tree.FrameTree.ChildFrames; len(f) != 1 || len(f[0].ChildFrames) != 1 || f[0].Frame.SecurityOrigin == tree.FrameTree.Frame.SecurityOrigin {
			t.Fatalf("%s: the view is not framed by a sandbox proxy on another origin", what)
		}
		mu.Lock()
		world = contexts[tree.FrameTree.ChildFrames[0].ChildFrames[0].Frame.ID]
		mu.Unlock()
		if world == 0 {
			t.Fatalf("%s: no script context for the view's frame", what)
		}
		until(what, `document.querySelector(`+jsString(ready)+`)`)
		if wide := inView(`document.documentElement.scrollWidth > 360 ? String(document.documentElement.scrollWidth) : ""`); wide != "" {
			t.Errorf("%s: the view is %s px wide at 360", what, wide)
		}
	}

	show("the change view", hostCase{Resource: views["ui://cortex/change"], Arguments: editArgs, Result: edit,
		Context: map[string]any{"theme": "light", "displayMode": "inline"}}, "#undo")
	// The view runs under the sandbox's policy: not even its own origin
	// can be fetched.
	if got := inView(`fetch(`+jsString(sandbox.URL+"/sandbox")+`).then(function () { return "fetched" }, function () { return "refused" })`,
		chromedp.EvalAwaitPromise); got != "refused" {
		t.Errorf("the view could fetch: the sandbox's policy is not in force")
	}
	if appOnly, err := chromedp.Run(bctx, chromedp.Evaluate[string](`window.appOnly.join(",")`)); err != nil || appOnly != "undo_change" {
		t.Errorf("the official bridge finds the app-only tools %q (%v); want undo_change", appOnly, err)
	}
	text := inView(`document.getElementById("view").innerText`)
	for _, want := range []string{"Garden plan", "Garden/Plan.md", "edit by phone", "+1 \u22121 lines", "Undo this change"} {
		if !strings.Contains(text, want) {
			t.Errorf("the change view lacks %q:\n%s", want, text)
		}
	}
	if marks := inView(`Array.from(document.querySelectorAll("mark")).map(function (m) { return m.textContent }).join(",")`); marks != "May,two,June,three" {
		t.Errorf("marked words %q", marks)
	}
	checkAxe("the change view, light")
	shot("mcp-app-change-light.png")
	inView(`(document.getElementById("undo").click(), "")`)
	until("undo", `/Undone/.test(document.getElementById("msg").textContent) || /bad/.test(document.getElementById("msg").className)`)
	if msg := inView(`document.getElementById("msg").textContent`); !strings.Contains(msg, "Undone") {
		t.Fatalf("Undo did not finish; the view says %q", msg)
	}
	if got := disk(); got != before {
		t.Errorf("after Undo the note is %q, want %q", got, before)
	}
	if calls, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`window.appCalls.join(",")`)); calls != "undo_change" {
		t.Errorf("the view called %q through the host; want undo_change", calls)
	}
	if n := undos(); n != 1 {
		t.Errorf("the journal shows %d undos by phone; want 1", n)
	}

	// The app edits again, another app edits after it: Undo is refused.
	edit2, _ := callRaw(phone, "edit_note", editArgs)
	callRaw(laptop, "append", map[string]any{"id": "Garden/Plan.md", "text": "Compost in October.\n"})
	now := disk()
	dark := map[string]any{"theme": "dark", "displayMode": "inline", "styles": map[string]any{"variables": map[string]any{
		"--color-background-primary": "#15171c", "--color-text-primary": "#e8e8ea", "--font-sans": "system-ui, sans-serif"}}}
	show("the change view, dark", hostCase{Resource: views["ui://cortex/change"], Arguments: editArgs, Result: edit2, Context: dark}, "#undo")
	if bg := inView(`getComputedStyle(document.body).backgroundColor`); bg != "rgb(21, 23, 28)" {
		t.Errorf("the host's background variable was not used: %s", bg)
	}
	checkAxe("the change view, dark")
	shot("mcp-app-change-dark.png")
	inView(`(document.getElementById("undo").click(), "")`)
	until("the refused undo", `/changed after/.test(document.getElementById("msg").textContent) || /Undone/.test(document.getElementById("msg").textContent)`)
	if msg := inView(`document.getElementById("msg").textContent`); !strings.Contains(msg, "changed after") {
		t.Errorf("no conflict shown; the view says %q", msg)
	}
	if link := inView(`document.querySelector("#msg a").href`); link != noteURL("Garden/Plan.md") {
		t.Errorf("the conflict links to %q, want %q", link, noteURL("Garden/Plan.md"))
	}
	if disk() != now {
		t.Error("a refused Undo changed the note")
	}
	if n := undos(); n != 1 {
		t.Errorf("after a refused Undo the journal shows %d undos by phone; want 1", n)
	}

	_, _ = callRaw(phone, "create_note", map[string]any{"path": "Recipes/Soup.md",
		"content": "# Bean soup\n\nA <b>warm</b> soup, for [[Garden/Plan|the garden]]. <img src=x onerror=\"document.title='owned'\"> " +
			"<script>document.title='owned'</script>\n\n- beans\n- leeks\n\n```\ncook 40 min\n```\n"})
	fetched, _ := callRaw(phone, "fetch", map[string]any{"id": "Recipes/Soup.md"})
	for _, theme := range []map[string]any{{"theme": "light"}, dark} {
		name := "the note view, " + theme["theme"].(string)
		show(name, hostCase{Resource: views["ui://cortex/note"], Arguments: map[string]any{"id": "Recipes/Soup.md"}, Result: fetched, Context: theme}, "article")
		if body := inView(`document.querySelector("article").innerText`); !strings.Contains(body, "A <b>warm</b> soup, for the garden. <img src=x") || !strings.Contains(body, "cook 40 min") {
			t.Errorf("%s shows %q", name, body)
		}
		if n := inView(`document.querySelectorAll("article img, article b, article script").length + "/" + document.title`); n != "0/cortex: a note" {
			t.Errorf("%s: the note's markup became elements or ran: %s", name, n)
		}
		checkAxe(name)
	}
	// A link to another note opens in the console, through the host.
	inView(`(document.querySelector("article a").click(), "")`)
	if got, err := chromedp.Run(bctx, chromedp.Evaluate[string](`window.linkOpened`, chromedp.EvalAwaitPromise)); err != nil || got != noteURL("Garden/Plan") {
		t.Errorf("the note's link asked the host to open %q (%v); want %q", got, err, noteURL("Garden/Plan"))
	}

	// Many notes built of hostile pieces, rendered as fetch renders them,
	// and markup no renderer of cortex writes: the view builds only the
	// renderer's elements, with only their classes and safe links, and
	// every "<" of the note stays text.
	var htmls []string
	for _, n := range hostileNotes(500) {
		htmls = append(htmls, string(render.NoteAt(n, site)))
	}
	htmls = append(htmls, `<img src=x onerror="document.title='owned'">`, `<p onclick="x()" style="color:red">p</p>`,
		`<a href="javascript:alert(1)">js</a>`, `<script>document.title='owned'</script>`, `<svg><a href="x">s</a></svg>`,
		`<p class="bad wikilink">c</p>`, `<a href="https://example.org" onclick="x()">e</a>`, `<iframe srcdoc="<p>x</p>"></iframe>`)
	cases, _ := json.Marshal(htmls)
	bad := inView(`(function (cases) {
		var bad = [];
		cases.forEach(function (c) {
			var div = document.createElement("div"), src = document.createElement("div");
			showNote(c, div);
			div.querySelectorAll("*").forEach(function (e) {
				var ok = /^(H[2-6]|P|BR|UL|OL|LI|BLOCKQUOTE|PRE|CODE|HR|STRONG|EM|TABLE|THEAD|TBODY|TR|TH|TD|SPAN)$/.test(e.tagName) &&
					Array.prototype.every.call(e.attributes, function (a) { return a.name === "class" && /^(wikilink|frontmatter|c|r)$/.test(a.value); });
				if (e.tagName === "A") ok = /^https?:\/\//.test(e.getAttribute("href")) && e.attributes.length === 3 && e.target === "_blank" && e.rel === "noopener noreferrer";
				if (!ok) bad.push(e.outerHTML.slice(0, 120));
			});
			src.textContent = new DOMParser().parseFromString(c, "text/html").body.textContent;
			if (src.textContent.split("<").length !== div.textContent.split("<").length) bad.push("lost a < in " + JSON.stringify(c).slice(0, 120));
		});
		return bad.slice(0, 5).join("\n");
	})(` + string(cases) + `)`)
	if bad != "" {
		t.Errorf("the note view let markup through:\n%s", bad)
	}
	if title := inView(`document.title`); title != "cortex: a note" {
		t.Errorf("a script in the note's HTML ran: the title is %q", title)
	}

	// No host theme: the page follows the system's light or dark scheme.
	for _, scheme := range []struct{ name, bg string }{{"light", "rgb(255, 255, 255)"}, {"dark", "rgb(28, 28, 30)"}} {
		if _, err := chromedp.Call(bctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme.name}}}); err != nil {
			t.Fatal(err)
		}
		show("the note view, no host theme, "+scheme.name, hostCase{Resource: views["ui://cortex/note"], Arguments: map[string]any{"id": "Recipes/Soup.md"},
			Result: fetched, Context: map[string]any{}}, "article")
		if bg := inView(`getComputedStyle(document.body).backgroundColor`); bg != scheme.bg {
			t.Errorf("without a host theme, the %s scheme's background is %s", scheme.name, bg)
		}
		shot("mcp-app-note-" + scheme.name + ".png")
	}
}
