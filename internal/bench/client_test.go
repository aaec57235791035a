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

// client is a lean MCP client: one keep-alive HTTP/1.1 connection pool, one
// session, hand-written JSON-RPC. The SDK's client spends more CPU per call
// than the server should, which would hide what we measure.
type client struct {
	url     string
	token   string
	session string
	http    *http.Client
	id      atomic.Int64
}

func newClient(url, token string, conns int) *client {
	tr := &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute}
	return &client{url: url + "/mcp", token: token, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	return c.http.Do(req)
}

// rpc sends one request and returns its result, reading either a JSON body
// or the first data event of an SSE stream.
func (c *client) rpc(ctx context.Context, method string, params any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params})
	resp, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s: %s %s", method, resp.Status, b)
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
			return nil, err
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: bad response %.200q", method, raw)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: rpc error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result, nil
}

func (c *client) initialize(ctx context.Context) error {
	_, err := c.rpc(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cortex-bench", "version": "1"}})
	if err != nil {
		return err
	}
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, err := c.post(ctx, body)
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
	raw, err := c.rpc(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return err
	}
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	if res.IsError {
		msg := ""
		if len(res.Content) > 0 {
			msg = res.Content[0].Text
		}
		return fmt.Errorf("%w: %s: %s", errTool, name, msg)
	}
	if out != nil {
		return json.Unmarshal(res.StructuredContent, out)
	}
	return nil
}
