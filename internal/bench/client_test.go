package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// client is a lean MCP client: one keep-alive HTTP/1.1 connection pool,
// hand-written JSON-RPC, speaking one protocol version. The SDK's client
// spends more CPU per call than the server should, which would hide what we
// measure.
type client struct {
	url     string
	token   string
	version string // the MCP protocol version, e.g. "2025-11-25" or "2026-07-28"
	session string
	http    *http.Client
	id      atomic.Int64
}

// Protocol versions the harness measures: the stateless 2026-07-28 beside
// the 2025-11-25 of the session era.
const (
	version2025 = "2025-11-25"
	version2026 = "2026-07-28"
)

func newClient(url, token string, conns int, version string) *client {
	tr := &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute}
	return &client{url: url + "/mcp", token: token, version: version, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// stateless reports whether the client speaks 2026-07-28 or later: no
// initialize, the version and capabilities in every request's _meta, and
// Mcp-Method / Mcp-Name headers.
func (c *client) stateless() bool { return c.version >= version2026 }

// rpcResponse is a JSON-RPC answer; Result holds a pointer to where the
// result goes, so that the answer is decoded once, as a client that knows
// what it asked for decodes it.
type rpcResponse struct {
	Result any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) post(ctx context.Context, method, name string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", c.version)
	if c.stateless() {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	return c.http.Do(req)
}

// rpc sends one request and decodes its result into result (a pointer, or
// nil to skip it), reading either a JSON body or the first data event of an
// SSE stream.
func (c *client) rpc(ctx context.Context, method string, params map[string]any, result any) error {
	if c.stateless() {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": c.version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "cortex-bench", "version": "1"}}
	}
	name, _ := params["name"].(string)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params})
	resp, err := c.post(ctx, method, name, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s %s", method, resp.Status, b)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.session == "" {
		c.session = s
	}
	var raw []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				raw = []byte(strings.TrimSpace(d))
				break
			}
		}
	} else {
		raw, err = io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if result == nil {
		result = new(json.RawMessage)
	}
	r := rpcResponse{Result: result}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("%s: bad response %.200q", method, raw)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: rpc error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return nil
}

// initialize opens the conversation: the handshake before 2026-07-28,
// server/discover from it on.
func (c *client) initialize(ctx context.Context) error {
	if c.stateless() {
		return c.rpc(ctx, "server/discover", map[string]any{}, nil)
	}
	err := c.rpc(ctx, "initialize", map[string]any{
		"protocolVersion": c.version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cortex-bench", "version": "1"}}, nil)
	if err != nil {
		return err
	}
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, err := c.post(ctx, "notifications/initialized", "", body)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil
}

var errTool = errors.New("tool error")

// tool calls a tool and decodes its structured content into out (if non-nil).
func (c *client) tool(ctx context.Context, name string, args map[string]any, out any) error {
	res, err := c.call(ctx, name, args)
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(res.StructuredContent, out)
}

// toolText calls a tool and returns the text of its content blocks, for a
// server that answers as text (the naive reference server).
func (c *client) toolText(ctx context.Context, name string, args map[string]any) (string, error) {
	res, err := c.call(ctx, name, args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, block := range res.Content {
		b.WriteString(block.Text)
	}
	return b.String(), nil
}

type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// call calls a tool; an answer with isError is an error.
func (c *client) call(ctx context.Context, name string, args map[string]any) (toolResult, error) {
	var res toolResult
	if err := c.rpc(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return res, err
	}
	if res.IsError {
		msg := ""
		if len(res.Content) > 0 {
			msg = res.Content[0].Text
		}
		return res, fmt.Errorf("%w: %s: %s", errTool, name, msg)
	}
	return res, nil
}
