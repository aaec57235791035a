package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// firstStatelessVersion is the first MCP version in which every result
// names the server in its _meta.
const firstStatelessVersion = "2026-07-28"

// serverInfoOnce keeps the server's icon and description out of every
// 2026-07-28 result but server/discover's. The SDK puts the whole
// Implementation in each result's _meta, where the icon, a data URI, is
// most of 700 bytes repeated on every call; a client learns it once, at
// discovery (or initialize, for older versions, which have no such _meta).
// The SDK leaves a serverInfo already there alone, so the short one set
// here is what the client gets.
func serverInfoOnce(impl *mcp.Implementation) mcp.Middleware {
	short := &mcp.Implementation{Name: impl.Name, Title: impl.Title, Version: impl.Version}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || res == nil || method == "server/discover" || !statelessRequest(req) {
				return res, err
			}
			m := res.GetMeta()
			if m == nil {
				m = map[string]any{}
			}
			if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
				m[mcp.MetaKeyServerInfo] = short
				res.SetMeta(m)
			}
			return res, nil
		}
	}
}

// statelessRequest reports whether req is of MCP 2026-07-28 or later, whose
// requests carry their version in _meta. Every request to a server has
// the SDK's ProtocolVersion method.
func statelessRequest(req mcp.Request) bool {
	r, ok := req.(interface{ ProtocolVersion() string })
	return ok && r.ProtocolVersion() >= firstStatelessVersion
}
