package e2e

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestScopedTokenLeaksNothing is issue 19's leak test through the real
// binary and the MCP SDK client: a token that may read Work/ and Notes/
// and change Work/Drafts/ calls every tool with many arguments, and no
// answer, error or header carries a word of a note it may not see.
func TestScopedTokenLeaksNothing(t *testing.T) {
	in := newInstance(t)
	words := writeLeakVault(t, in.Vault)
	tok := in.scopedToken("scoped", "--read", leakRead, "--write", leakWrite)
	serveArgs := []string{"--deny", leakDeny(), "--private", leakPrivate, "--rate-limit", "1000000"}
	in.start(serveArgs...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newLeakWatch(words, tok)
	cs := connectWatched(t, ctx, in, w, "")

	// The instructions at the top of the vault are the owner's for every app.
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "leak-instructions-root") {
		t.Errorf("instructions = %q; want the root AGENTS.md", got)
	}
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
	}
	if len(names) != 12 {
		t.Fatalf("tools/list gives %d tools: %v", len(names), names)
	}

	// The watch itself sees a canary.
	w.check("", "x "+canary("body"))
	if len(w.leaks) != 1 {
		t.Fatalf("the watch missed a canary: %v", w.leaks)
	}
	w.leaks = nil

	r := &leakRun{t: t, ctx: ctx, cs: cs, used: map[string]bool{}}
	r.reads()
	w.report(t, "reads")
	before := vaultSnapshot(t, in.Vault)
	r.oracle()
	w.report(t, "hidden and missing")

	r.refusedWrites()
	if diff := snapshotDiff(before, vaultSnapshot(t, in.Vault)); len(diff) > 0 {
		t.Errorf("refused writes changed the vault: %v", diff)
	}
	w.report(t, "refused writes")

	r.fuzz(rand.New(rand.NewPCG(19, 2026)), 300)
	if diff := snapshotDiff(before, vaultSnapshot(t, in.Vault)); len(diff) > 0 {
		t.Errorf("fuzzed calls changed the vault: %v", diff)
	}
	w.report(t, "fuzz")

	r.writes(in)
	w.report(t, "writes")

	for _, name := range names {
		if !r.used[name] {
			t.Errorf("the test never called %s", name)
		}
	}

	// A scope change is effective on the next request, in the same session.
	soon := map[string]any{"id": "Later/Soon.md"}
	if o := r.call("fetch", soon); o.code() != "not_found" {
		t.Errorf("fetch Later/Soon.md before the scope reaches it: %s %s", o.code(), o.text)
	}
	if _, errOut, err := in.admin("token", "scope", "scoped", "--read", leakRead+",Later/"); err != nil {
		t.Fatalf("token scope: %v\n%s", err, errOut)
	}
	if o := r.call("fetch", soon); o.code() != "" {
		t.Errorf("fetch Later/Soon.md once the scope reaches it: %s %s", o.code(), o.text)
	}
	if _, errOut, err := in.admin("token", "scope", "scoped", "--read", leakRead); err != nil {
		t.Fatalf("token scope: %v\n%s", err, errOut)
	}
	if o := r.call("fetch", soon); o.code() != "not_found" {
		t.Errorf("fetch Later/Soon.md after the scope shrank: %s %s", o.code(), o.text)
	}
	w.report(t, "scope change")

	// A daily note the scope reaches is made without the template, which
	// lies in a hidden folder.
	if _, errOut, err := in.admin("token", "scope", "scoped", "--read", leakRead+",Daily/", "--write", leakWrite+",Daily/"); err != nil {
		t.Fatalf("token scope: %v\n%s", err, errOut)
	}
	w.forget(canary("daily"), "daily/2", `"path":"daily"`)
	r.want("", "append", map[string]any{"id": "2030-01-01", "text": "from the app"})
	r.want("", "fetch", map[string]any{"id": "2030-01-01"})
	if raw := readVaultFile(t, in, "Daily/2030-01-01.md"); strings.Contains(raw, canary("template")) {
		t.Errorf("the daily note was made from a template the app cannot see:\n%s", raw)
	}
	w.report(t, "daily note")

	// Instructions in a folder the app cannot see are not sent, neither in
	// initialize nor in server/discover.
	if err := in.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	in.start(append(serveArgs, "--instructions", hiddenFolder()+"/AGENTS.md")...)
	for _, version := range []string{"", "2026-07-28"} {
		cs := connectWatched(t, ctx, in, w, version)
		if got := cs.InitializeResult().Instructions; got != "" {
			t.Errorf("instructions (%q) = %q; want none", version, got)
		}
	}
	discover(t, in, w)
	w.report(t, "hidden instructions")
	t.Logf("%d answers read", w.calls)
}

// scopedToken creates a token with scope flags.
func (in *instance) scopedToken(name string, flags ...string) string {
	in.t.Helper()
	out, errOut, err := in.admin(append([]string{"token", "create", name}, flags...)...)
	if err != nil {
		in.t.Fatalf("token create: %v\n%s", err, errOut)
	}
	return strings.TrimSpace(out)
}

// leakRun is one scoped session's calls.
type leakRun struct {
	t    *testing.T
	ctx  context.Context
	cs   *mcp.ClientSession
	used map[string]bool
}

func (r *leakRun) call(name string, args map[string]any) outcome {
	r.used[name] = true
	return try(r.ctx, r.cs, name, args)
}

// want calls and checks the error code ("" for success).
func (r *leakRun) want(code, name string, args map[string]any) outcome {
	r.t.Helper()
	o := r.call(name, args)
	if o.code() != code {
		b, _ := json.Marshal(args)
		r.t.Errorf("%s %s = %q (%s%v); want %q", name, b, o.code(), clip(o.text, 300), o.err, code)
	}
	return o
}

// hiddenIDs are the ways to name a note the app may not see.
func hiddenIDs() []string {
	c, h := canary, hiddenFolder()
	now := time.Now()
	ids := []string{
		h + "/" + c("name") + ".md", c("name"), "[[" + c("name") + "]]", c("title"), c("alias"), "[[" + c("alias") + "]]",
		c("name") + "#" + c("heading"), "[[" + c("name") + "#Part " + c("section") + "]]", "[[" + c("name") + "#^" + c("block") + "]]",
		c("alias") + "#^" + c("block"), h + "/Ledger.md", "Ledger", "[[Ledger]]", h + "/" + c("subfolder") + "/Deep.md", "Deep",
		h + "/AGENTS.md", c("rootname") + ".md", c("rootname"), "Inbox.md", "Inbox", ".trash/" + h + "/" + c("trashname") + ".md",
		c("trashname"), "Work/Diary.md", "Diary", "[[Diary]]", c("privtitle"), c("privalias"), "Journal", "Notes/Journal.md",
		"Work/sealed-" + c("sealedname") + ".md", "sealed-" + c("sealedname"), "Work/sealed-notes.md", "sealed-notes",
		"Work/Drafts/Secret.md", "Secret", "[[Secret]]", leakDeny() + "Denied.md", "Denied",
		"Daily/" + now.Format("2006-01-02") + ".md",
	}
	return ids
}

// hiddenFiles are the attachments and folders outside the scope.
func hiddenFiles() []string {
	c, h := canary, hiddenFolder()
	return []string{h + "/chart.png", "chart.png", h + "/" + c("image") + ".png", c("image") + ".png",
		"Attachments/" + c("attach") + ".pdf", c("attach") + ".pdf"}
}

func (r *leakRun) reads() {
	t, c, h := r.t, canary, hiddenFolder()
	// What the scope shows is there.
	for _, id := range []string{"Work/Plan.md", "Plan", "Commons", "[[Public#Top]]", "Notes/Reading.md", "Work/ok.png", "ok.png", "Linked"} {
		r.want("", "fetch", map[string]any{"id": id})
	}
	// A name or alias a hidden note shares is the visible note's alone.
	for id, want := range map[string]string{"Twin": "Notes/Twin.md", "[[Twin]]": "Notes/Twin.md", "Commons": "Work/Public.md",
		"[[Commons]]": "Work/Public.md", "ok.png": "Work/ok.png"} {
		if got := str(r.want("", "fetch", map[string]any{"id": id}).data, "id"); got != want {
			t.Errorf("fetch %s = %s; want %s", id, got, want)
		}
	}
	// What it does not is missing, word for word as a missing note is.
	for _, id := range append(hiddenIDs(), append(hiddenFiles(), leakDeny()+"Nope.md", "Work/Nope.md")...) {
		// --deny is a rule on paths, the same whether a note is there.
		code := "not_found"
		if strings.HasPrefix(id, leakDeny()) {
			code = "protected_path"
		}
		r.want(code, "fetch", map[string]any{"id": id})
		r.call("fetch", map[string]any{"id": id, "section": "Part " + c("section")})
		r.call("links", map[string]any{"id": id})
	}
	for _, day := range []string{"today", "yesterday", "tomorrow", time.Now().Format("2006-01-02")} {
		r.want("outside_scope", "fetch", map[string]any{"id": day})
	}
	r.call("fetch", map[string]any{"id": "Work/Plan.md", "section": "Part " + c("section")})

	// Search: each word, tag and property of the hidden notes, filters, and
	// every page of a search that hidden notes would match, with the lines
	// each hit matched.
	var queries []string
	for _, l := range canaryLabels {
		queries = append(queries, canary(l), "tag:"+canary(l), "#"+canary(l), "file:"+canary(l), "path:"+canary(l))
	}
	queries = append(queries, "["+c("fmkey")+":"+c("fmval")+"]", "["+c("fmkey")+"]", "["+c("privkey")+"]", "[private:true]",
		"[type:book]", "[status:open]", "folder:"+h, "path:"+h, "folder:Daily", "path:Daily", "folder:Attachments",
		"folder:.trash", "path:.trash", "file:Secret", "file:Diary", "file:chart", "file:sealed", "tag:plan", "tag:reading",
		"gardens", "gardens OR "+c("body"), "-gardens", `"see [[Public]]"`, "Public", "Linked", "Journal", "Diary", "Ledger")
	for _, q := range queries {
		// With lines, each hit also names its matching lines: what a
		// search shows at most.
		r.pages("search", map[string]any{"query": q, "lines": true})
	}
	if got := r.pages("search", map[string]any{"query": "gardens", "limit": 1}); !slices.Equal(got, []string{"Notes/Reading.md"}) {
		t.Errorf("search gardens finds %v; want Notes/Reading.md alone", got)
	}
	for _, f := range []string{h, "Work", "Daily", "Attachments", ".trash", leakDeny(), "Work/Drafts", "Notes"} {
		r.pages("search", map[string]any{"query": "", "folder": f, "limit": 1})
		r.pages("search", map[string]any{"query": "gardens", "folder": f})
	}
	for _, tag := range []string{c("tag"), c("privtag"), "plan", "reading"} {
		r.pages("search", map[string]any{"query": "", "tag": tag, "limit": 1})
	}
	if got := r.pages("search", map[string]any{"query": "", "tag": "reading"}); !slices.Equal(got, []string{"Notes/Reading.md"}) {
		t.Errorf("search tag reading finds %v; want Notes/Reading.md alone", got)
	}

	// List: the root, each folder, recursive, the trash.
	if got := r.pages("list", map[string]any{}); !slices.Equal(got, []string{".trash", "Notes", "Work"}) {
		t.Errorf("list of the root = %v; want .trash, Notes and Work", got)
	}
	for _, f := range []string{"", "Work", "Work/Drafts", "Notes", ".trash", h, h + "/" + c("subfolder"), "Daily", "Attachments",
		leakDeny(), "Later", ".trash/" + h} {
		r.pages("list", map[string]any{"folder": f})
		r.pages("list", map[string]any{"folder": f, "recursive": true})
	}

	// Links: a visible note linking to hidden ones, and one hidden notes link to.
	for _, id := range []string{"Work/Plan.md", "Work/Public.md", "Commons", "Work/Drafts/Linked.md", "Notes/Reading.md"} {
		r.want("", "links", map[string]any{"id": id})
	}
	o := r.want("", "links", map[string]any{"id": "Work/Public.md"})
	if b, _ := json.Marshal(o.data["backlinks"]); !strings.Contains(string(b), "Work/Plan.md") || strings.Count(string(b), `"path"`) != 1 {
		t.Errorf("backlinks of Work/Public.md = %s; want Work/Plan.md alone", b)
	}
	o = r.want("", "links", map[string]any{"id": "Work/Plan.md"})
	if b, _ := json.Marshal(o.data["unresolved"]); !strings.Contains(string(b), "Ledger") || !strings.Contains(string(b), "Diary") {
		t.Errorf("links of Work/Plan.md: unresolved = %s; want Ledger and Diary", b)
	}

	// Recent.
	for _, args := range []map[string]any{{}, {"days": 1}, {"days": 365, "limit": 200}, {"limit": 1}} {
		r.want("", "recent", args)
	}
}

// pages calls a paged tool and follows every cursor, returning the paths
// or ids found.
func (r *leakRun) pages(name string, args map[string]any) []string {
	var found []string
	for range 100 {
		o := r.call(name, args)
		if o.code() != "" {
			return found
		}
		key := "results"
		if name == "list" {
			key = "entries"
		}
		items, _ := o.data[key].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			found = append(found, str(m, "id")+str(m, "path"))
		}
		next := str(o.data, "next_cursor")
		if next == "" {
			return found
		}
		args = cloneArgs(args)
		args["cursor"] = next
	}
	r.t.Errorf("%s %v: more than 100 pages", name, args)
	return found
}

func cloneArgs(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// refusedWrites tries every change outside the write scope or on notes
// the app cannot see; none may change anything on disk.
func (r *leakRun) refusedWrites() {
	c, h := canary, hiddenFolder()
	for _, p := range []string{"Work/New.md", "Notes/New.md", h + "/New.md", h + "/" + c("name") + ".md", "Daily/New.md",
		"Daily/" + time.Now().Format("2006-01-02") + ".md", "Work/Diary.md", "Work/Drafts/Secret.md", "Attachments/New.md",
		"Later/New.md", "New.md", c("rootname") + ".md", "Inbox.md", "Work/sealed-new.md", "Work/Drafts/sealed-new.md"} {
		r.want("outside_scope", "create_note", map[string]any{"path": p, "content": "# New\n"})
	}
	// Under a hidden note in the write scope: refused as beside one, not
	// "a file is in the way".
	r.want("outside_scope", "create_note", map[string]any{"path": "Work/Drafts/Secret.md/Child.md", "content": "# New\n"})
	// A denied folder or the trash outside the write scope: the scope
	// answers first, whether a note is there or not.
	for _, p := range []string{leakDeny() + "New.md", leakDeny() + "Denied.md", ".trash/New.md"} {
		r.want("outside_scope", "create_note", map[string]any{"path": p, "content": "# New\n"})
	}
	// A hidden note is not found, as a missing one is, even at a path the
	// scope shows (a private note); a denied path is refused whether a note
	// is there or not.
	outside := map[string]bool{leakDeny() + "Denied.md": true, leakDeny() + "Nope.md": true}
	for _, id := range append(hiddenIDs(), h+"/chart.png", "Work/Nope.md", "Notes/Nope.md", leakDeny()+"Nope.md", "Work/Drafts/Nope.md") {
		code := "not_found"
		if outside[id] {
			code = "outside_scope"
		}
		r.want(code, "append", map[string]any{"id": id, "text": "more"})
		r.want(code, "edit_note", map[string]any{"id": id, "version": "v1", "old_text": "gardens", "new_text": "x"})
		r.want(code, "replace_section", map[string]any{"id": id, "version": "v1", "heading": "Part " + c("section"), "content": "x"})
		r.want(code, "update_frontmatter", map[string]any{"id": id, "version": "v1", "set": map[string]any{"x": 1}})
		r.want(code, "delete_note", map[string]any{"id": id, "version": "v1"})
		r.want(code, "move_note", map[string]any{"id": id, "version": "v1", "to": "Work/Drafts/Moved.md", "update_links": true})
	}
	for _, day := range []string{"today", "yesterday", "tomorrow"} {
		r.want("outside_scope", "append", map[string]any{"id": day, "text": "more"})
	}
	for _, id := range []string{"Work/Plan.md", "Plan", "Commons", "Notes/Reading.md"} {
		r.want("outside_scope", "append", map[string]any{"id": id, "text": "more"})
		r.want("outside_scope", "edit_note", map[string]any{"id": id, "version": "v1", "old_text": "Do it", "new_text": "x"})
		r.want("outside_scope", "replace_section", map[string]any{"id": id, "version": "v1", "heading": "Steps", "content": "x"})
		r.want("outside_scope", "update_frontmatter", map[string]any{"id": id, "version": "v1", "set": map[string]any{"x": 1}})
		r.want("outside_scope", "delete_note", map[string]any{"id": id, "version": "v1"})
		r.want("outside_scope", "move_note", map[string]any{"id": id, "version": "v1", "to": "Work/Drafts/Moved.md"})
	}
	mine := r.want("", "fetch", map[string]any{"id": "Work/Drafts/Mine.md"})
	meta, _ := mine.data["metadata"].(map[string]any)
	v := str(meta, "version")
	r.want("outside_scope", "move_note", map[string]any{"id": "Work/Drafts/Mine.md", "version": v, "to": leakDeny() + "Mine.md"})
	for _, to := range []string{h + "/Mine.md", h + "/" + c("name") + ".md", "Work/Mine.md", "Work/Drafts/Secret.md", "Work/Diary.md",
		"Daily/Mine.md", "Work/Drafts/Secret.md/Mine.md", "Notes/Mine.md", "Work/Drafts/sealed-mine.md", "Mine.md"} {
		r.want("outside_scope", "move_note", map[string]any{"id": "Work/Drafts/Mine.md", "version": v, "to": to})
	}
}

// writes makes changes the scope allows, and a move of a note that hidden
// notes link to: the answer counts them and names none.
func (r *leakRun) writes(in *instance) {
	t := r.t
	r.want("", "create_note", map[string]any{"path": "Work/Drafts/New.md", "content": "# New\n\nfresh\n"})
	r.want("note_exists", "create_note", map[string]any{"path": "Work/Drafts/New.md", "content": "again"})
	r.want("", "append", map[string]any{"id": "Work/Drafts/Mine.md", "text": "more", "section": "Log"})
	o := r.want("", "fetch", map[string]any{"id": "Work/Drafts/Linked.md"})
	meta, _ := o.data["metadata"].(map[string]any)
	o = r.want("", "move_note", map[string]any{"id": "Work/Drafts/Linked.md", "version": str(meta, "version"),
		"to": "Work/Drafts/Linked2.md", "update_links": true})
	elsewhere := 0
	for _, k := range []string{"rewritten_elsewhere", "still_linking_elsewhere"} {
		n, _ := o.data[k].(float64)
		elsewhere += int(n)
	}
	// Linked from: the hidden note, the Ledger, Diary, sealed-notes,
	// Secret (and Work/Plan.md, which the app sees).
	if elsewhere != 5 {
		b, _ := json.Marshal(o.data)
		t.Errorf("move_note counted %d notes elsewhere; want 5: %s", elsewhere, b)
	}
	for _, k := range []string{"rewritten", "still_linking"} {
		b, _ := json.Marshal(o.data[k])
		if strings.Contains(string(b), "Diary") || strings.Contains(string(b), "Secret") || strings.Contains(string(b), "sealed") {
			t.Errorf("move_note %s names a hidden note: %s", k, b)
		}
	}
	raw := readVaultFile(t, in, hiddenFolder()+"/"+canary("name")+".md")
	if !strings.Contains(raw, "Linked2") {
		t.Errorf("the hidden note's link was not rewritten: %s", raw)
	}
	o = r.want("", "fetch", map[string]any{"id": "Work/Drafts/New.md"})
	meta, _ = o.data["metadata"].(map[string]any)
	r.want("", "delete_note", map[string]any{"id": "Work/Drafts/New.md", "version": str(meta, "version")})
	r.pages("list", map[string]any{"folder": ".trash", "recursive": true})
	r.want("", "recent", map[string]any{"days": 1})
	r.want("", "links", map[string]any{"id": "Work/Drafts/Linked2.md"})
}
