package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// The leak test's vault (issue 19): every note, folder and attachment a
// scoped app may not see carries a canary, a random-looking word found
// nowhere else, in its path, text, title, aliases, tags or frontmatter.
// The app's scope is leakRead to read and leakWrite to change; --private
// and --deny are leakPrivate and leakDeny.

// canary is the word of one place in the vault: "zq" and eight hex digits
// derived from label, so that the words are fixed from run to run.
func canary(label string) string {
	h := sha256.Sum256([]byte("cortex leak " + label))
	return "zq" + hex.EncodeToString(h[:4])
}

// canaryLabels are the places; a canary(label) for each.
var canaryLabels = []string{
	"folder", "name", "title", "alias", "tag", "fmkey", "fmval", "heading", "body", "body2", "section", "block",
	"ledger", "image", "privtitle", "privalias", "privtag", "privbody", "privkey", "sealedname", "sealedbody",
	"deny", "denybody", "daily", "rootname", "rootbody", "inbox", "attach", "trashname", "trashbody",
	"secretbody", "subfolder", "subbody", "instr", "notesprivbody", "twin", "template",
}

// Paths of hidden notes that carry no canary of their own (a daily note is
// named by its date, a private note may have a plain name): no answer may
// name them either.
var hiddenPlainPaths = []string{"work/diary.md", "work/drafts/secret.md", "inbox.md", "daily/2", `"path":"daily"`,
	"sealed-notes", "notes/journal.md"}

const (
	leakRead    = "Work/,Notes/"
	leakWrite   = "Work/Drafts/"
	leakPrivate = "**/sealed-*.md"
)

func leakDeny() string { return "Work/" + canary("deny") + "/" }

// hiddenFolder is the top folder the scope does not reach.
func hiddenFolder() string { return canary("folder") }

// writeLeakVault writes the vault; it returns the canaries and the paths
// whose text must never reach the app, lower-cased.
func writeLeakVault(t *testing.T, root string) []string {
	t.Helper()
	c := canary
	h := hiddenFolder()
	now := time.Now()
	files := map[string]string{
		"AGENTS.md": "Keep answers short. leak-instructions-root\n",
		// What the scope shows.
		"Work/Plan.md": "---\ntags: [plan]\nstatus: open\n---\n# Plan\n\nSee [[Ledger]], [[Diary]], [[Public#Top]] and [[Linked]].\n\n" +
			"![[chart.png]] ![[ok.png]]\n\n## Steps\n\nDo it.\n",
		"Work/Public.md":        "---\ntags: [shared]\naliases: [Commons]\n---\n# Public\n\n## Top\n\nEveryone reads this.\n",
		"Work/Drafts/Linked.md": "# Linked\n\nA draft others link to.\n",
		"Work/Drafts/Mine.md":   "# Mine\n\n## Log\n\nstarted\n",
		"Notes/Reading.md":      "---\ntags: [reading]\ntype: book\n---\n# Reading\n\nA book about gardens.\n",
		"Later/Soon.md":         "# Soon\n\nshown once the scope reaches it\n",
		// Hidden by the scope: a top folder named by a canary.
		h + "/" + c("name") + ".md": "---\ntitle: " + c("title") + "\naliases: [" + c("alias") + ", Commons]\ntags: [" + c("tag") +
			"]\n" + c("fmkey") + ": " + c("fmval") + "\ntype: book\nstatus: open\n---\n# " + c("heading") + "\n\n" +
			c("body") + " gardens " + c("body2") + " see [[Public]] and [[Linked]] and [[Plan]].\n\n## Part " + c("section") +
			"\n\ntext ^" + c("block") + "\n",
		// Names a hidden note shares with a visible one.
		h + "/Twin.md":                               "# Twin\n\n" + c("twin") + " gardens\n",
		"Notes/Twin.md":                              "# Twin\n\nthe one the app sees\n",
		h + "/ok.png":                                "\x89PNG\r\n\x1a\n" + c("twin"),
		h + "/Template.md":                           "# {{title}}\n\n" + c("template") + "\n",
		".obsidian/daily-notes.json":                 `{"folder": "Daily", "template": "` + h + `/Template"}`,
		h + "/Ledger.md":                             "# Ledger\n\n" + c("ledger") + " gardens, links [[Public]] and [[Work/Drafts/Linked]].\n",
		h + "/chart.png":                             "\x89PNG\r\n\x1a\n" + c("image"),
		h + "/" + c("image") + ".png":                "\x89PNG\r\n\x1a\n",
		h + "/" + c("subfolder") + "/Deep.md":        "# Deep\n\n" + c("subbody") + " gardens\n",
		h + "/AGENTS.md":                             "Secret instructions " + c("instr") + "\n",
		c("rootname") + ".md":                        "# Root\n\n" + c("rootbody") + " gardens [[Public]]\n",
		"Inbox.md":                                   "# Inbox\n\n" + c("inbox") + " gardens\n",
		"Attachments/" + c("attach") + ".pdf":        "%PDF-1.4\n",
		".trash/" + h + "/" + c("trashname") + ".md": "# Gone\n\n" + c("trashbody") + " gardens\n",
		// Private inside a visible folder: by frontmatter, and by --private.
		"Work/Diary.md": "---\nprivate: true\ntitle: " + c("privtitle") + "\naliases: [" + c("privalias") + ", Journal]\ntags: [" +
			c("privtag") + ", plan]\n" + c("privkey") + ": yes\ntype: book\n---\n# Diary\n\n" + c("privbody") +
			" gardens, see [[Public]] and [[Linked]].\n",
		"Work/sealed-" + c("sealedname") + ".md": "# Sealed\n\nsealed gardens [[Public]]\n",
		"Work/sealed-notes.md":                   "# Sealed notes\n\n" + c("sealedbody") + " gardens [[Linked]]\n",
		"Work/Drafts/Secret.md":                  "---\nprivate: yes\n---\n# Secret\n\n" + c("secretbody") + " gardens [[Linked]]\n",
		"Notes/Journal.md":                       "---\nprivate: on\ntags: [reading]\n---\n# Journal\n\n" + c("notesprivbody") + " gardens\n",
		// Denied for everyone, inside the read scope.
		leakDeny() + "Denied.md": "# Denied\n\n" + c("denybody") + " gardens [[Public]]\n",
		// Attachments in and out of the scope.
		"Work/ok.png": "\x89PNG\r\n\x1a\nok",
	}
	for _, d := range []time.Time{now.AddDate(0, 0, -1), now, now.AddDate(0, 0, 1)} {
		files["Daily/"+d.Format("2006-01-02")+".md"] = "# Day\n\n" + c("daily") + " gardens [[Public]]\n"
	}
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var words []string
	for _, l := range canaryLabels {
		words = append(words, canary(l))
	}
	return append(words, hiddenPlainPaths...)
}

// vaultSnapshot is every file and folder under root with a hash of its
// bytes, for "nothing landed on disk".
func vaultSnapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".cortex" && d.IsDir() {
			return filepath.SkipDir
		}
		if d.IsDir() {
			snap[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		snap[rel] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// snapshotDiff names what differs between two snapshots.
func snapshotDiff(before, after map[string]string) []string {
	var diff []string
	for p, h := range after {
		if b, ok := before[p]; !ok {
			diff = append(diff, "added "+p)
		} else if b != h {
			diff = append(diff, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diff = append(diff, "removed "+p)
		}
	}
	sort.Strings(diff)
	return diff
}

// leakWatch is the MCP client's transport: it reads every answer whole,
// its headers and body, and reports any canary in it that the request
// itself did not carry (an app may be told back what it asked for, nothing
// more). Opaque strings that decode as base64 (cursors) are read too.
type leakWatch struct {
	words []string
	base  http.RoundTripper

	mu    sync.Mutex
	leaks []string
	calls int
}

func newLeakWatch(words []string, token string) *leakWatch {
	return &leakWatch{words: words, base: testkit.Bearer{Token: token}}
}

func (w *leakWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	var sent []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		sent = b
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	resp, err := w.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var hdr bytes.Buffer
	resp.Header.Write(&hdr)
	w.check(r.URL.String()+"\n"+string(sent), hdr.String()+"\n"+string(body))
	return resp, nil
}

// opaque finds strings that may be base64 (cursors, tokens).
var opaque = regexp.MustCompile(`[A-Za-z0-9+/_=-]{12,}`)

func (w *leakWatch) check(asked, got string) {
	all := got
	for _, s := range opaque.FindAllString(got, -1) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(s); err == nil {
				all += "\n" + string(b)
			}
		}
	}
	asked, all = strings.ToLower(asked), strings.ToLower(all)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	for _, word := range w.words {
		i := strings.Index(all, word)
		if i < 0 || strings.Contains(asked, word) {
			continue
		}
		lo, hi := max(0, i-120), min(len(all), i+len(word)+60)
		w.leaks = append(w.leaks, fmt.Sprintf("%q leaked\n  request: %s\n  answer: …%s…", word, clip(asked, 400), all[lo:hi]))
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// forget stops watching for words the app may now see.
func (w *leakWatch) forget(words ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.words = slices.DeleteFunc(w.words, func(s string) bool { return slices.Contains(words, s) })
}

// report fails the test with every leak seen, and resets.
func (w *leakWatch) report(t *testing.T, what string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.leaks {
		t.Errorf("%s: %s", what, l)
	}
	w.leaks = nil
}

// connectWatched opens an MCP session whose every answer w reads.
func connectWatched(t *testing.T, ctx context.Context, in *instance, w *leakWatch, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "leak", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: in.URL + "/mcp", HTTPClient: &http.Client{Transport: w},
		MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, in.logs.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// outcome is one tool call's answer, protocol errors included, for calls
// whose arguments may be refused before the tool runs.
type outcome struct {
	err     error
	isError bool
	text    string
	data    map[string]any
}

func (o outcome) code() string {
	if o.err != nil {
		return "protocol"
	}
	if !o.isError {
		return ""
	}
	code, _, _ := strings.Cut(o.text, ":")
	return code
}

func try(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) outcome {
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return outcome{err: err}
	}
	o := outcome{isError: r.IsError}
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			o.text += tc.Text
		}
	}
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		_ = json.Unmarshal(b, &o.data)
	}
	return o
}

// discover posts a raw server/discover (MCP 2026-07-28) through w.
func discover(t *testing.T, in *instance, w *leakWatch) string {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"leak","version":"1"}}`
	req, _ := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"} {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: w, Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("server/discover: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// readVaultFile reads a note as the owner would, from disk.
func readVaultFile(t *testing.T, in *instance, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(in.Vault, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
