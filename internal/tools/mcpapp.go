package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/appview"
)

// uiExtension is the MCP Apps extension: a client that offers it, with
// the HTML type, frames cortex's views beside the tools' results. To
// every other client cortex answers exactly as if it did not exist.
const uiExtension = "io.modelcontextprotocol/ui"

// viewOf names the view a tool's result is shown in: the change view for
// every tool that writes (taken from the annotations, as IsWriteTool is),
// the note view for fetch, none for the rest.
func (s *server) viewOf(name string) string {
	switch {
	case s.appOnly[name] || s.writes[name]:
		return appview.ChangeURI
	case name == "fetch":
		return appview.NoteURI
	}
	return ""
}

// offersUI reports whether client capabilities (ClientCapabilities, or
// the JSON object a 2026-07-28 request carries in _meta) include the UI
// extension with the HTML type.
func offersUI(caps any) bool {
	b, err := json.Marshal(caps)
	if err != nil {
		return false
	}
	var c struct {
		Extensions map[string]struct {
			MIMETypes []string `json:"mimeTypes"`
		} `json:"extensions"`
	}
	if json.Unmarshal(b, &c) != nil {
		return false
	}
	for _, t := range c.Extensions[uiExtension].MIMETypes {
		if t == appview.MIMEType {
			return true
		}
	}
	return false
}

// uiOffered reports whether the client behind req offered the extension.
// A 2026-07-28 request says so itself, in _meta; an initialize request in
// its params; a request of a session, in what the session was initialized
// with. /mcp keeps no sessions, so an older client's later requests carry
// no capabilities: what its credential's last initialize offered stands
// for them.
func (s *server) uiOffered(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return s.ui.offered(credential(req))
	}
	if caps, ok := p.GetMeta()[mcp.MetaKeyClientCapabilities]; ok {
		return offersUI(caps)
	}
	if ip, ok := p.(*mcp.InitializeParams); ok {
		return ip.Capabilities != nil && offersUI(ip.Capabilities)
	}
	// A call answered without the SDK (Servers.Quick) has no session.
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
			return offersUI(ip.Capabilities)
		}
	}
	return s.ui.offered(credential(req))
}

// credential names the token a request came with, "" without one.
func credential(req mcp.Request) string {
	x := req.GetExtra()
	if x == nil || x.TokenInfo == nil || x.TokenInfo.UserID == "" {
		return ""
	}
	app, _ := x.TokenInfo.Extra["app"].(string)
	return x.TokenInfo.UserID + "\x00" + app
}

// maxUIClients bounds uiClients: credentials are few (the owner makes
// each), but the table must not grow without end.
const maxUIClients = 4096

// uiClients remembers, per credential, whether the client's last
// initialize offered the UI extension: for clients of versions before
// 2026-07-28, whose other requests do not say. It is shared by the
// servers Servers builds, and lost on restart, when such a client shows
// plain results until it initializes again.
type uiClients struct {
	mu sync.Mutex
	m  map[string]bool
}

func newUIClients() *uiClients { return &uiClients{m: map[string]bool{}} }

func (u *uiClients) offered(cred string) bool {
	if cred == "" {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.m[cred]
}

func (u *uiClients) remember(cred string, ui bool) {
	if cred == "" {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if !ui {
		delete(u.m, cred)
		return
	}
	if _, ok := u.m[cred]; !ok && len(u.m) >= maxUIClients {
		for k := range u.m { // map order is random
			delete(u.m, k)
			break
		}
	}
	u.m[cred] = true
}

// apps answers the extension's part of the protocol for a client that
// offered it, and hides it from every other: the views' resources, the
// tools' _meta.ui, the app-only tools.
func (s *server) apps(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover", "tools/list", "resources/list", "resources/read":
		case "tools/call":
			// Only an app-only tool's call depends on the client here; a
			// write's result asks for itself (addTool).
			if r, ok := req.(*mcp.CallToolRequest); !ok || !s.appOnly[r.Params.Name] {
				return next(ctx, method, req)
			}
		default:
			return next(ctx, method, req)
		}
		ui := s.uiOffered(req)
		if method == "initialize" {
			s.ui.remember(credential(req), ui)
		}
		if !ui {
			if r, ok := req.(*mcp.CallToolRequest); ok && s.appOnly[r.Params.Name] {
				// The SDK's own answer for a tool it does not have.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", r.Params.Name)}
			}
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				l.Tools = s.modelTools(l.Tools)
			}
			return res, err
		}
		switch method {
		case "resources/list":
			return viewList(), nil
		case "resources/read":
			if r, ok := req.(*mcp.ReadResourceRequest); ok {
				if v, ok := appview.Lookup(r.Params.URI); ok {
					return viewContents(v), nil
				}
			}
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			r.Capabilities = withUI(r.Capabilities)
		case *mcp.DiscoverResult:
			r.Capabilities = withUI(r.Capabilities)
		case *mcp.ListToolsResult:
			r.Tools = s.uiTools(r.Tools)
		}
		return res, nil
	}
}

// withUI declares resources (the views, read by resources/read) and the
// extension itself.
func withUI(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	out := &mcp.ServerCapabilities{}
	if c != nil {
		*out = *c
	}
	if out.Resources == nil {
		out.Resources = &mcp.ResourceCapabilities{}
	}
	out.Extensions = maps.Clone(out.Extensions)
	if out.Extensions == nil {
		out.Extensions = map[string]any{}
	}
	out.Extensions[uiExtension] = map[string]any{}
	return out
}

// modelTools drops the app-only tools from a list.
func (s *server) modelTools(ts []*mcp.Tool) []*mcp.Tool {
	out := ts[:0:0]
	for _, t := range ts {
		if !s.appOnly[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// uiTools copies the tools with _meta.ui naming their views; the tools
// that write also say, in their output schema, that a result may carry
// the view's data.
func (s *server) uiTools(ts []*mcp.Tool) []*mcp.Tool {
	out := make([]*mcp.Tool, len(ts))
	for i, t := range ts {
		uri := s.viewOf(t.Name)
		if uri == "" {
			out[i] = t
			continue
		}
		c := *t
		ui := map[string]any{"resourceUri": uri}
		if s.appOnly[t.Name] {
			ui["visibility"] = []string{"app"}
		}
		c.Meta = maps.Clone(t.Meta)
		if c.Meta == nil {
			c.Meta = mcp.Meta{}
		}
		c.Meta["ui"] = ui
		if sch, ok := s.uiOutput[t.Name]; ok {
			c.OutputSchema = sch
		}
		out[i] = &c
	}
	return out
}

// uiOutputSchema is sch with the data of the view uri, encoded once for
// each schema and view.
func uiOutputSchema(sch *jsonschema.Schema, uri string) json.RawMessage {
	type withView struct {
		sch *jsonschema.Schema
		uri string
	}
	return encodedOnce(withView{sch, uri}, func() *jsonschema.Schema {
		w := *sch
		w.Properties = maps.Clone(sch.Properties)
		w.Properties["view"] = viewSchemas[uri]
		return &w
	})
}

// viewSchemas describe the data each view gets, only to clients that
// offered the extension.
var viewSchemas = map[string]*jsonschema.Schema{
	appview.ChangeURI: {Type: "object",
		Description: "for the change view of an MCP App host: the change and its diff; not for the model"},
	appview.NoteURI: {Type: "object",
		Description: "for the note view of an MCP App host: the note as HTML; not for the model"},
}

// viewMeta is each view's _meta.ui: no outside address of any kind.
var viewMeta = mcp.Meta{"ui": map[string]any{
	"csp": map[string]any{
		"connectDomains": []string{}, "resourceDomains": []string{},
		"frameDomains": []string{}, "baseUriDomains": []string{},
	},
	"prefersBorder": true,
}}

func viewList() *mcp.ListResourcesResult {
	var rs []*mcp.Resource
	for _, v := range appview.Views() {
		rs = append(rs, &mcp.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description,
			MIMEType: appview.MIMEType, Size: int64(len(v.HTML)), Meta: viewMeta})
	}
	return &mcp.ListResourcesResult{Resources: rs}
}

func viewContents(v appview.View) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: v.URI, MIMEType: appview.MIMEType, Text: v.HTML, Meta: viewMeta}}}
}
