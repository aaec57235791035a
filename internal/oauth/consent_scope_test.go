package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

func TestChooseScope(t *testing.T) {
	const rw, ro = DefaultScope, ScopeRead
	for _, tc := range []struct {
		name    string
		asked   string
		form    url.Values
		granted string
		scope   string // Describe of the vault scope
		err     string
	}{
		{"default is what was asked", rw, url.Values{}, rw, "the whole vault", ""},
		{"whole with private", rw, url.Values{"access": {"whole"}, "private": {"1"}}, rw, "the whole vault, private notes included", ""},
		{"read only", rw, url.Values{"access": {"read"}}, ro, "the whole vault", ""},
		{"read only of a read-only app", ro, url.Values{"access": {"read"}}, ro, "the whole vault", ""},
		{"folders to read and change", rw, url.Values{"access": {"folders"}, "read": {"Journal"}, "write": {"Work"}},
			rw, "read Journal, Work; write Work", ""},
		{"folders to read only", rw, url.Values{"access": {"folders"}, "read": {"Journal", "Work"}}, ro, "read Journal, Work; write nothing", ""},
		{"patterns", rw, url.Values{"access": {"folders"}, "read_patterns": {"Journal/2026-*.md, !Journal/2026-01*"}, "write_patterns": {"Inbox/**"}},
			rw, "read Journal/2026-*.md, !Journal/2026-01*, Inbox/**; write Inbox/**", ""},
		{"a folder name is no pattern", rw, url.Values{"access": {"folders"}, "read": {"[draft]", "!old", "a*b"}},
			ro, `read \[draft], \!old, a\*b; write nothing`, ""},
		{"a box twice", rw, url.Values{"access": {"folders"}, "read": {"Work"}, "write": {"Work"}}, rw, "read Work; write Work", ""},
		{"nothing chosen", rw, url.Values{"access": {"folders"}}, "", "", "Choose at least one folder or pattern"},
		{"write for a read-only app", ro, url.Values{"access": {"folders"}, "write": {"Work"}}, "", "", "asked only to read"},
		{"write patterns for a read-only app", ro, url.Values{"access": {"folders"}, "read": {"Work"}, "write_patterns": {"Work"}}, "", "", "asked only to read"},
		{"bad pattern", rw, url.Values{"access": {"folders"}, "read_patterns": {"Work/[a"}}, "", "",
			`The pattern "Work/[a": it has an unclosed [ or a trailing \. Go back`},
		{"folders ticked under the whole vault", rw, url.Values{"access": {"whole"}, "read": {"Work"}}, "", "", "but also the whole vault"},
		{"patterns typed under read only", rw, url.Values{"access": {"read"}, "read_patterns": {"Work"}}, "", "", "but also the whole vault"},
		{"broken UTF-8", rw, url.Values{"access": {"folders"}, "read": {"\xe4"}}, "", "", "not valid text"},
		{"unknown access", rw, url.Values{"access": {"all"}}, "", "", "Choose the whole vault"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			granted, vs, err := chooseScope(tc.form, tc.asked)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || granted != tc.granted || vs.Describe() != tc.scope {
				t.Fatalf("= %q, %q, %v; want %q, %q", granted, vs.Describe(), err, tc.granted, tc.scope)
			}
			// What is stored reads back the same.
			if back, err := scope.Decode(vs.Encode()); err != nil || back.Describe() != vs.Describe() {
				t.Errorf("decoded: %q, %v", back.Describe(), err)
			}
		})
	}
	// A folder box means that folder, whatever its name.
	_, vs, _ := chooseScope(url.Values{"access": {"folders"}, "read": {"[draft]"}}, rw)
	if !vs.CanRead("[draft]/a.md") || vs.CanRead("d/a.md") {
		t.Errorf("the folder [draft] is read as a pattern")
	}
}

// decideWith answers the consent page last shown with the owner's choice.
func (b *browser) decideWith(choice url.Values) *http.Response {
	v := url.Values{"request": {b.request}, "decision": {"approve"}}
	for k, vs := range choice {
		v[k] = vs
	}
	return b.PostForm("/authorize/consent", v)
}

// TestConsentChoiceIsStored goes through the page with the folders offered:
// the chosen scope reaches the access token, and refresh keeps it.
func TestConsentChoiceIsStored(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, func(o *Options) {
		o.TopFolders = func(context.Context) ([]string, error) { return []string{"Journal", "Work"}, nil }
	})
	client := h.dcr("claude.ai", claudeCallback)
	p := newPKCE("k1")
	b := h.browser("192.0.2.30:1")
	b.signIn()
	resp := b.follow(authURL(client, claudeCallback, p, nil))
	page := testkit.Body(resp)
	for _, want := range []string{`id="access-whole" checked`, `id="access-read"`, `name="read" value="Journal"`, `name="write" value="Work"`, `id="private"`} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %s", want)
		}
	}
	// A bad pattern leaves the request waiting.
	if resp := b.decideWith(url.Values{"access": {"folders"}, "read_patterns": {"a/../b"}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(testkit.Body(resp), "use paths inside the vault") {
		t.Fatalf("bad pattern: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	resp = b.decideWith(url.Values{"access": {"folders"}, "read": {"Journal"}, "write": {"Work"}, "private": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", resp.StatusCode, testkit.Body(resp))
	}
	u, _ := url.Parse(resp.Header.Get("Location"))
	st, out := h.exchange(client, u.Query().Get("code"), claudeCallback, p)
	if st != 200 || str(out, "scope") != DefaultScope {
		t.Fatalf("exchange: %d %v", st, out)
	}
	const want = "read Journal, Work; write Work, private notes included"
	id, err := h.srv.VerifyAccessToken(ctx, str(out, "access_token"))
	if err != nil || id.VaultScope.Describe() != want || !id.HasScope(ScopeWrite) {
		t.Fatalf("access token: %+v, %v", id, err)
	}
	// Refresh keeps it, twice over.
	rt := str(out, "refresh_token")
	for i := 0; i < 2; i++ {
		st, next := h.refresh(client, rt)
		if st != 200 {
			t.Fatalf("refresh %d: %d %v", i, st, next)
		}
		id, err := h.srv.VerifyAccessToken(ctx, str(next, "access_token"))
		if err != nil || id.VaultScope.Describe() != want {
			t.Fatalf("refreshed access token %d: %q, %v", i, id.VaultScope.Describe(), err)
		}
		rt = str(next, "refresh_token")
	}
	// A change by the owner holds from the next request, and through refresh.
	if _, err := h.st.SetClientScope(ctx, client, ""); err != nil {
		t.Fatal(err)
	}
	st, next := h.refresh(client, rt)
	if id, err := h.srv.VerifyAccessToken(ctx, str(next, "access_token")); st != 200 || err != nil || !id.VaultScope.Whole() || id.VaultScope.Private {
		t.Fatalf("after the owner's change: %+v, %v", id, err)
	}
}

// TestConsentReadOnlyApp: an app that asked only to read is offered no
// write box, and a crafted one is refused.
func TestConsentReadOnlyApp(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, func(o *Options) {
		o.TopFolders = func(context.Context) ([]string, error) { return []string{"Work"}, nil }
	})
	client := h.dcr("reader", claudeCallback)
	p := newPKCE("k2")
	b := h.browser("192.0.2.31:1")
	b.signIn()
	page := testkit.Body(b.follow(authURL(client, claudeCallback, p, func(v url.Values) { v.Set("scope", ScopeRead) })))
	if !strings.Contains(page, `name="read" value="Work"`) || strings.Contains(page, `name="write"`) || strings.Contains(page, `access-read`) {
		t.Errorf("consent page of a read-only app:\n%s", page)
	}
	if resp := b.decideWith(url.Values{"access": {"folders"}, "write": {"Work"}}); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("write for a read-only app: %d", resp.StatusCode)
	}
	resp := b.decideWith(url.Values{"access": {"folders"}, "read": {"Work"}})
	u, _ := url.Parse(resp.Header.Get("Location"))
	st, out := h.exchange(client, u.Query().Get("code"), claudeCallback, p)
	if st != 200 || str(out, "scope") != ScopeRead {
		t.Fatalf("exchange: %d %v", st, out)
	}
	if id, err := h.srv.VerifyAccessToken(ctx, str(out, "access_token")); err != nil || id.VaultScope.Describe() != "read Work; write nothing" || id.HasScope(ScopeWrite) {
		t.Fatalf("access token: %+v, %v", id, err)
	}
}

// TestConsentReadOnlyChoice: "read only" takes notes:write away from an app
// that asked for it, through refresh too.
func TestConsentReadOnlyChoice(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	client := h.dcr("claude.ai", claudeCallback)
	p := newPKCE("k3")
	b := h.browser("192.0.2.32:1")
	b.signIn()
	page := testkit.Body(b.follow(authURL(client, claudeCallback, p, nil)))
	if strings.Contains(page, `id="folders"`) || !strings.Contains(page, `id="read-patterns"`) {
		t.Errorf("without TopFolders the page offers patterns only")
	}
	resp := b.decideWith(url.Values{"access": {"read"}})
	u, _ := url.Parse(resp.Header.Get("Location"))
	st, out := h.exchange(client, u.Query().Get("code"), claudeCallback, p)
	if st != 200 || str(out, "scope") != ScopeRead {
		t.Fatalf("exchange: %d %v", st, out)
	}
	st, next := h.postForm("/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client},
		"refresh_token": {str(out, "refresh_token")}, "scope": {DefaultScope}})
	if st != 400 || str(next, "error") != "invalid_scope" {
		t.Errorf("refresh asking for write back: %d %v", st, next)
	}
	if id, err := h.srv.VerifyAccessToken(ctx, str(out, "access_token")); err != nil || id.HasScope(ScopeWrite) || !id.VaultScope.Whole() {
		t.Errorf("access token: %+v, %v", id, err)
	}
}

// TestConsentFoldersUnavailable: a failing folder list leaves the patterns.
func TestConsentFoldersUnavailable(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.TopFolders = func(context.Context) ([]string, error) { return nil, errors.New("disk gone") }
	})
	client := h.dcr("claude.ai", claudeCallback)
	b := h.browser("192.0.2.33:1")
	b.signIn()
	page := testkit.Body(b.follow(authURL(client, claudeCallback, newPKCE("k4"), nil)))
	if !strings.Contains(page, `id="folders-missing"`) || !strings.Contains(page, `id="consent-form"`) {
		t.Errorf("consent page without folders:\n%s", page)
	}
}

// TestUnreadableGrantScopeRefused: a grant whose stored scope does not
// decode is a server failure, never the whole vault.
func TestUnreadableGrantScopeRefused(t *testing.T) {
	ctx := context.Background()
	h, client, code, p := granted(t)
	_, out := h.exchange(client, code, claudeCallback, p)
	if _, err := h.st.SetClientScope(ctx, client, `{"read":["[oops"]}`); err != nil {
		t.Fatal(err)
	}
	id, err := h.srv.VerifyAccessToken(ctx, str(out, "access_token"))
	if err == nil || errors.Is(err, ErrInvalidToken) || !errors.Is(err, scope.ErrStored) {
		t.Fatalf("VerifyAccessToken = %+v, %v; want a stored-scope failure", id, err)
	}
}
