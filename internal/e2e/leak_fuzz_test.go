package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// The leak test's fuzzed calls, and its check that a hidden name answers
// as a missing one.

// fuzz makes n calls with arguments built from the canaries, folder names,
// path pieces, globs and query operators, chosen by a seeded generator.
// None may write: every path it writes to lies outside the write scope.
func (r *leakRun) fuzz(rng *rand.Rand, n int) {
	pieces := []string{"Work", "Notes", "Drafts", "Daily", "Attachments", ".trash", "Later", hiddenFolder(), leakDeny(),
		"*", "**", "?", "[a-z]", "!", "..", ".", "/", "#", "^", "|", "[[", "]]", "tag:", "path:", "folder:", "file:",
		"[", "]", ":", "OR", "-", `"`, ".md", ".png", "today", "Diary", "Secret", "Journal", "Inbox", "Ledger", "sealed-",
		"Gardens", "é", "\u0301", " ", "%2e", "~", "$", "\\"}
	for _, l := range canaryLabels {
		pieces = append(pieces, canary(l))
	}
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString([]string{"", "/", " ", "#", "|", ".md", "#^"}[rng.IntN(7)])
		}
		return b.String()
	}
	// writePath never lies in the write scope, whatever it says.
	writePath := func() string {
		for {
			p := []string{"Notes/", hiddenFolder() + "/", "", "Daily/", "Work/", "Later/"}[rng.IntN(6)] + word()
			if !strings.Contains(strings.ToLower(path.Clean(strings.ReplaceAll(p, "\\", "/"))), "drafts") {
				return p
			}
		}
	}
	for i := range n {
		var name string
		var args map[string]any
		switch rng.IntN(12) {
		case 0, 1:
			name, args = "search", map[string]any{"query": word(), "limit": 1 + rng.IntN(50), "lines": i%2 == 0}
			if rng.IntN(3) == 0 {
				args["folder"] = word()
			}
			if rng.IntN(3) == 0 {
				args["tag"] = word()
			}
		case 2, 3:
			name, args = "fetch", map[string]any{"id": word()}
			if rng.IntN(3) == 0 {
				args["section"] = word()
			}
		case 4:
			name, args = "list", map[string]any{"folder": word(), "recursive": rng.IntN(2) == 0}
		case 5:
			name, args = "links", map[string]any{"id": word()}
		case 6:
			name, args = "recent", map[string]any{"days": 1 + rng.IntN(365), "limit": 1 + rng.IntN(200)}
		case 7:
			name, args = "create_note", map[string]any{"path": writePath(), "content": "# x\n"}
		case 8:
			name, args = "append", map[string]any{"id": writePath(), "text": "x"}
		case 9:
			name, args = "edit_note", map[string]any{"id": writePath(), "version": "v1", "old_text": "gardens", "new_text": "x"}
		case 10:
			name, args = "move_note", map[string]any{"id": writePath(), "version": "v1", "to": writePath(), "update_links": true}
		default:
			name = []string{"replace_section", "update_frontmatter", "delete_note"}[rng.IntN(3)]
			args = map[string]any{"id": writePath(), "version": "v1", "heading": word(), "content": "x", "set": map[string]any{word(): "x"}}
			if name != "replace_section" {
				delete(args, "heading")
				delete(args, "content")
			}
			if name != "update_frontmatter" {
				delete(args, "set")
			}
		}
		if name == "search" || name == "list" {
			r.pages(name, args)
		}
		r.sameAsMissing(name, args)
	}
}

// sameAsMissing calls name with args and with args whose first hidden
// word is spelled one letter off (a name nothing has), and wants the same
// answer.
func (r *leakRun) sameAsMissing(name string, args map[string]any) {
	b, _ := json.Marshal(args)
	_, word, twWord, ok := twin(string(b))
	if !ok {
		r.call(name, args)
		return
	}
	var twArgs map[string]any
	_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), word, twWord)), &twArgs)
	got, want := r.call(name, args).withoutCloseNames(), r.call(name, twArgs).withoutCloseNames()
	gb, _ := json.Marshal(got.data)
	wb, _ := json.Marshal(want.data)
	back := func(s string) string { return strings.ReplaceAll(s, twWord, word) }
	if got.code() != want.code() || got.text != back(want.text) || string(gb) != back(string(wb)) {
		r.t.Errorf("%s %s answers unlike a missing note:\n  hidden: %s %s\n  missing: %s %s", name, b,
			clip(got.text, 300), clip(string(gb), 300), clip(back(want.text), 300), clip(back(string(wb)), 300))
	}
}

// withoutCloseNames keeps of a not_found answer what does not depend on
// the name asked for: the close names it offers (and the sentence that
// points to them) are those of visible notes close to that name, so a
// hidden name and its twin, one letter apart, may be offered different
// ones. That none names a hidden note is the watch's to check, as for
// every answer.
func (o outcome) withoutCloseNames() outcome {
	if o.code() != "not_found" {
		return o
	}
	o.text, _, _ = strings.Cut(o.text, ";")
	if e, ok := o.data["error"].(map[string]any); ok {
		msg, _ := e["message"].(string)
		msg, _, _ = strings.Cut(msg, ";")
		o.data = map[string]any{"error": map[string]any{"code": e["code"], "message": msg}}
	}
	return o
}

// twinWords are the hidden names without a canary; twin spells each, and
// each canary, one letter off: a name nothing in the vault has.
var twinWords = []string{"Diary", "Secret", "Inbox", "Journal", "Ledger", "Deep", "Denied", "sealed-notes", "chart", "Daily"}

func twin(s string) (string, string, string, bool) {
	words := slices.Clone(twinWords)
	for _, l := range canaryLabels {
		words = append(words, canary(l))
	}
	for _, w := range words {
		if i := strings.Index(s, w); i >= 0 {
			last := w[len(w)-1]
			tw := w[:len(w)-1] + string("xy"[min(1, int(last-'x')&1)])
			if last == 'x' || last == 'y' {
				tw = w[:len(w)-1] + "w"
			}
			return s[:i] + tw + s[i+len(w):], w, tw, true
		}
	}
	return s, "", "", false
}

// oracle checks that a hidden note answers exactly as a missing one: each
// call with a hidden name and the same call with its twin (a name no note
// has) get the same answer, the twin's spelled back.
func (r *leakRun) oracle() {
	t, c := r.t, canary
	ids := append(hiddenIDs(), hiddenFiles()...)
	ids = append(ids, hiddenFolder(), hiddenFolder()+"/"+c("subfolder"), "Attachments", ".trash/"+hiddenFolder(), "Daily")
	calls := []struct {
		name string
		args func(id string) map[string]any
	}{
		{"fetch", func(id string) map[string]any { return map[string]any{"id": id} }},
		{"fetch", func(id string) map[string]any { return map[string]any{"id": id, "section": "Part " + c("section")} }},
		{"links", func(id string) map[string]any { return map[string]any{"id": id} }},
		{"list", func(id string) map[string]any { return map[string]any{"folder": id} }},
		{"search", func(id string) map[string]any { return map[string]any{"query": "", "folder": id} }},
		{"append", func(id string) map[string]any { return map[string]any{"id": id, "text": "x"} }},
		{"edit_note", func(id string) map[string]any {
			return map[string]any{"id": id, "version": "v1", "old_text": "gardens", "new_text": "x"}
		}},
		{"delete_note", func(id string) map[string]any { return map[string]any{"id": id, "version": "v1"} }},
		{"move_note", func(id string) map[string]any {
			return map[string]any{"id": id, "version": "v1", "to": "Work/Drafts/Moved.md"}
		}},
		{"create_note", func(id string) map[string]any { return map[string]any{"path": id, "content": "x"} }},
		{"move_note", func(id string) map[string]any {
			return map[string]any{"id": "Work/Drafts/Mine.md", "version": "v1", "to": id}
		}},
	}
	for _, id := range ids {
		tw, word, twWord, ok := twin(id)
		if !ok {
			continue
		}
		for _, k := range calls {
			// A new note where a hidden one lies is refused (outside_scope),
			// where nothing lies it is made: the one thing docs/scopes.md
			// says an app can tell, and only inside its write scope.
			if (k.name == "create_note" || k.name == "move_note" && k.args(id)["to"] == id) && strings.HasPrefix(id, leakWrite) {
				continue
			}
			got, want := r.call(k.name, k.args(id)).withoutCloseNames(), r.call(k.name, k.args(tw)).withoutCloseNames()
			gb, _ := json.Marshal(got.data)
			wb, _ := json.Marshal(want.data)
			back := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, tw, id), twWord, word) }
			if got.code() != want.code() || got.text != back(want.text) || string(gb) != back(string(wb)) {
				b, _ := json.Marshal(k.args(id))
				t.Errorf("%s %s answers unlike a missing note:\n  hidden: %s %s\n  missing: %s %s", k.name, b,
					clip(got.text, 300), clip(string(gb), 300), clip(back(want.text), 300), clip(back(string(wb)), 300))
			}
		}
	}
}
