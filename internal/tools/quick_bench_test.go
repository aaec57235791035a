package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// BenchmarkQuick is a fetch and a search answered by Servers.Quick as the
// edge calls it (a verified token, the credential's scope, the request's
// headers and body), over a vault of 400 notes with the journal in a real
// SQLite store behind CacheJournal. It measures what the answer of a
// read-only call costs, the garbage above all (-benchmem): the edge keeps
// RSS low with a soft memory limit that follows the live heap, so every
// byte left behind by a call is CPU spent collecting it.
func BenchmarkQuick(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	const notes = 400
	for i := range notes {
		p := filepath.Join(dir, fmt.Sprintf("folder %d", i%8), fmt.Sprintf("Note %d.md", i))
		body := fmt.Sprintf("---\ntitle: Note %d\ntags: [garden, plan/spring]\nstatus: open\n---\n# Note %d\n\n%s\n## Later\n\n%s",
			i, i, strings.Repeat("Words about the garden & the plan for <the> week, see [[Note 1]].\n", 30),
			strings.Repeat("Más palabras sobre el jardín, el año que viene.\n", 20))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	v := indexedVault(b, dir)
	st := openStore(b)
	servers := NewServers(Deps{Vault: v, Journal: CacheJournal(st), PublicURL: config.MustParsePublicURL(testURL + "/"), Version: "bench"})
	servers.For("Keep notes short.")
	// As the edge hands them on: the credential's scope in the context,
	// its identity as the token info.
	ctx = scope.NewContext(ctx, scope.Scope{})
	ti := &auth.TokenInfo{UserID: "1", Extra: map[string]any{"app": "bench"}}
	queries := []string{"garden plan", "jardín", "week", "note 17", "tag:garden spring"}
	// Every note read once and every query run once before measuring, so
	// that the journal's and the vault's caches are as a running server's.
	h := http.Header{}
	for k, x := range quickHeadersFor("2025-11-25") {
		h.Set(k, x)
	}
	for i := range notes {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"folder %d/Note %d.md"}}}`, i%8, i)
		if !servers.Quick(ctx, ti, h, []byte(body), new(bytes.Buffer)) {
			b.Fatal("not answered: ", body)
		}
	}
	for _, q := range queries {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":%q}}}`, q)
		if !servers.Quick(ctx, ti, h, []byte(body), new(bytes.Buffer)) {
			b.Fatal("not answered: ", body)
		}
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, tool := range []string{"fetch", "search"} {
			b.Run(tool+"/"+version, func(b *testing.B) {
				h := http.Header{}
				for k, x := range quickHeadersFor(version) {
					h.Set(k, x)
				}
				meta := ""
				if version >= firstStatelessVersion {
					h.Set("Mcp-Method", "tools/call")
					h.Set("Mcp-Name", tool)
					meta = meta2026 + ","
				}
				var answer bytes.Buffer // reused, as the edge reuses its buffers
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					answer.Reset()
					args := fmt.Sprintf(`{"id":"folder %d/Note %d.md"}`, i%8, i%notes)
					if tool == "search" {
						args = fmt.Sprintf(`{"query":%q}`, queries[i%len(queries)])
					}
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s"name":%q,"arguments":%s}}`, i, meta, tool, args)
					ok := servers.Quick(ctx, ti, h, []byte(body), &answer)
					if a := answer.Bytes(); !ok || !bytes.Contains(a, []byte(`"structuredContent"`)) || bytes.Contains(a, []byte(`"isError":true`)) {
						b.Fatalf("not answered: %v %.300s", ok, a)
					}
					i += 7 // not the same note twice in a row
				}
			})
		}
	}
}

// BenchmarkTextBlock writes the text block of a fetch's answer: the
// output's JSON as a JSON string, a note of 3.4 KB in it.
func BenchmarkTextBlock(b *testing.B) {
	note := strings.Repeat("Una le y investigación mañana, \"el proyecto\" según [[Señal]] — el año.\n", 48)
	enc, err := encode(fetchOut{ID: "Notes/Señal Idea.md", Title: "Señal Idea", Text: note, URL: testURL + "/n/Señal%20Idea"})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.Run("encodeInto", func(b *testing.B) {
		e := json.NewEncoder(&buf)
		for b.Loop() {
			buf.Reset()
			_ = encodeInto(e, &buf, string(enc))
		}
	})
	b.Run("quoteEncoded", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			quoteEncoded(&buf, enc)
		}
	})
}
