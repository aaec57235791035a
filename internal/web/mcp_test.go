package web

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rpcResult decodes a JSON-RPC response body.
func rpcResult(t *testing.T, body []byte) (result map[string]any, errCode int, errData json.RawMessage) {
	t.Helper()
	var resp struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("body %q is not JSON-RPC: %v", body, err)
	}
	if resp.Error != nil {
		return nil, resp.Error.Code, resp.Error.Data
	}
	return resp.Result, 0, nil
}

// Every protocol version is served at /mcp without sessions: an old
// client's initialize gets no Mcp-Session-Id, and a tool call stands alone
// whatever the version, with the same result.
func TestEveryVersionWithoutSessions(t *testing.T) {
	h := newHarness(t, nil)
	w := h.do(mcpRequest(http.MethodPost, secretA, "", initializeBody))
	if w.Code != http.StatusOK || w.Header().Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize: %d, session %q; want 200 and none", w.Code, w.Header().Get("Mcp-Session-Id"))
	}
	var structured []string
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
		if v >= "2026-07-28" {
			body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{},` + meta2026 + `}}`
		}
		w := h.do(mcpRequest(http.MethodPost, secretA, v, body))
		res, code, _ := rpcResult(t, w.Body.Bytes())
		if w.Code != http.StatusOK || code != 0 {
			t.Fatalf("%s tools/call: %d %s", v, w.Code, w.Body)
		}
		b, _ := json.Marshal(res["structuredContent"])
		structured = append(structured, string(b))
	}
	if want := `{"app":"app-a","user_id":"token:app-a"}`; slices.ContainsFunc(structured, func(s string) bool { return s != want }) {
		t.Errorf("results per version = %q; want %s for each", structured, want)
	}
}

// MCP 2026-07-28 requests: headers checked against the body, server/discover
// answered, an unknown version refused listing the versions served.
func TestVersion20260728Rules(t *testing.T) {
	h := newHarness(t, nil)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{},` + meta2026 + `}}`

	t.Run("discover", func(t *testing.T) {
		w := h.do(mcpRequest(http.MethodPost, secretA, "2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta2026+`}}`))
		res, code, _ := rpcResult(t, w.Body.Bytes())
		if w.Code != http.StatusOK || code != 0 {
			t.Fatalf("server/discover: %d %s", w.Code, w.Body)
		}
		b, _ := json.Marshal(res["supportedVersions"])
		if want, _ := json.Marshal(mcp.SupportedProtocolVersions()); string(b) != string(want) {
			t.Errorf("supportedVersions %s, want %s", b, want)
		}
	})
	for _, tc := range []struct {
		name   string
		edit   func(r *http.Request)
		status int
		code   int
	}{
		{"headers match", func(*http.Request) {}, 200, 0},
		{"Mcp-Name of another tool", func(r *http.Request) { r.Header.Set("Mcp-Name", "block") }, 400, -32020},
		{"Mcp-Method of another method", func(r *http.Request) { r.Header.Set("Mcp-Method", "tools/list") }, 400, -32020},
		{"no Mcp-Name", func(r *http.Request) { r.Header.Del("Mcp-Name") }, 400, -32020},
		{"header version differs from _meta", func(r *http.Request) { r.Header.Set("Mcp-Protocol-Version", "2025-11-25") }, 400, -32020},
		// A name may come Base64-encoded (=?base64?…?=) and is compared
		// with the body once decoded.
		{"Mcp-Name in Base64", func(r *http.Request) { r.Header.Set("Mcp-Name", "=?base64?d2hvYW1p?=") }, 200, 0},
		{"Mcp-Name in Base64 of another tool", func(r *http.Request) { r.Header.Set("Mcp-Name", "=?base64?YmxvY2s=?=") }, 400, -32020},
		{"Mcp-Name in broken Base64", func(r *http.Request) { r.Header.Set("Mcp-Name", "=?base64?d2hv!W1p?=") }, 400, -32020},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpRequest(http.MethodPost, secretA, "2026-07-28", call)
			tc.edit(r)
			w := h.do(r)
			_, code, _ := rpcResult(t, w.Body.Bytes())
			if w.Code != tc.status || code != tc.code {
				t.Errorf("%d code %d, want %d code %d; body %s", w.Code, code, tc.status, tc.code, w.Body)
			}
		})
	}
	// A name outside visible ASCII must come Base64-encoded: sent raw,
	// even equal to the body's, it is refused as a header mismatch.
	t.Run("Mcp-Name outside ASCII", func(t *testing.T) {
		r := mcpRequest(http.MethodPost, secretA, "2026-07-28", strings.Replace(call, `"whoami"`, `"whoamé"`, 1))
		r.Header.Set("Mcp-Name", "whoamé")
		w := h.do(r)
		if _, code, _ := rpcResult(t, w.Body.Bytes()); w.Code != 400 || code != -32020 {
			t.Errorf("%d code %d, want 400 code -32020; body %s", w.Code, code, w.Body)
		}
	})
	t.Run("unsupported version without an id", func(t *testing.T) {
		w := h.do(mcpRequest(http.MethodPost, secretA, "2099-01-01", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		if _, code, _ := rpcResult(t, w.Body.Bytes()); w.Code != 400 || code != -32022 || strings.Contains(w.Body.String(), `"id"`) {
			t.Errorf("%d code %d, body %s; want 400 -32022 without an id", w.Code, code, w.Body)
		}
	})
	for _, v := range []string{"2099-01-01", "2025-01-01", "1.0"} {
		t.Run("unsupported "+v, func(t *testing.T) {
			w := h.do(mcpRequest(http.MethodPost, secretA, v, strings.Replace(call, "2026-07-28", v, 1)))
			_, code, data := rpcResult(t, w.Body.Bytes())
			var d mcp.UnsupportedProtocolVersionData
			json.Unmarshal(data, &d)
			if w.Code != http.StatusBadRequest || code != -32022 || d.Requested != v || !slices.Equal(d.Supported, mcp.SupportedProtocolVersions()) {
				t.Errorf("%d code %d data %s; want 400 -32022 listing the versions served", w.Code, code, data)
			}
			if !strings.Contains(w.Body.String(), `"id":3`) {
				t.Errorf("the error does not carry the request's id: %s", w.Body)
			}
		})
	}
}

// A header mirrored from the body that comes twice is refused over real
// HTTP, whatever its values: the server reads the first line, a proxy may
// read the last. The version header is refused as a version not served,
// the others as a header mismatch. A batch, which MCP dropped in
// 2025-06-18, gets a JSON-RPC error too, not a line of plain text.
func TestRepeatedHeadersAndBatches(t *testing.T) {
	h := newHarness(t, nil)
	ts := h.start(t)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{},` + meta2026 + `}}`
	post := func(version, body string, edit func(http.Header)) (int, string, int, json.RawMessage) {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header = mcpRequest(http.MethodPost, secretA, version, body).Header
		if edit != nil {
			edit(r.Header)
		}
		resp, err := ts.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%d %s: %s; want a JSON-RPC error", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		_, code, data := rpcResult(t, b)
		return resp.StatusCode, string(b), code, data
	}
	for _, tc := range []struct {
		name, header, again string
		code                int
	}{
		{"Mcp-Method twice", "Mcp-Method", "tools/list", -32020},
		{"Mcp-Method twice, the same", "Mcp-Method", "tools/call", -32020},
		{"Mcp-Name twice", "Mcp-Name", "block", -32020},
		{"MCP-Protocol-Version twice", "MCP-Protocol-Version", "2025-11-25", -32022},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body, code, data := post("2026-07-28", call, func(h http.Header) { h.Add(tc.header, tc.again) })
			if st != http.StatusBadRequest || code != tc.code || !strings.Contains(body, `"id":3`) || !strings.Contains(body, "once") {
				t.Errorf("%d %s; want 400 code %d with the request's id and what to do", st, body, tc.code)
			}
			var d mcp.UnsupportedProtocolVersionData
			if json.Unmarshal(data, &d); tc.code == -32022 && (d.Requested != "2026-07-28, 2025-11-25" || len(d.Supported) == 0) {
				t.Errorf("data %s; want the versions sent and those served", data)
			}
		})
	}
	if st, body, code, _ := post("2026-07-28", call, nil); st != http.StatusOK || code != 0 {
		t.Fatalf("the same call with each header once: %d %s", st, body)
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}},{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}]`
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		st, body, code, _ := post(v, " \n"+batch, func(h http.Header) { h.Set("Mcp-Method", "tools/list") })
		if st != http.StatusBadRequest || code != -32600 || strings.Contains(body, `"id"`) || !strings.Contains(body, "POST of its own") {
			t.Errorf("%s batch: %d %s; want 400 code -32600 without an id, saying what to do", v, st, body)
		}
	}
}
