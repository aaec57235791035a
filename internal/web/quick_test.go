package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestQuickAnswerBuffers: the buffers Quick's answers are built in are
// reused, so each must come back empty (an answer must never carry the
// end of another client's), an answer Quick declines must leave the
// request to the MCP server untouched, and the buffer of a very large
// answer must not be kept.
func TestQuickAnswerBuffers(t *testing.T) {
	answers := map[string]string{
		"long":  strings.Repeat("a long answer, ", 200),
		"short": "short",
		"huge":  strings.Repeat("x", 4*maxPooledAnswer),
	}
	h := newHarness(t, func(o *Options) {
		o.Quick = func(_ context.Context, _ *auth.TokenInfo, _ http.Header, body []byte, answer *bytes.Buffer) bool {
			if answer.Len() != 0 {
				t.Errorf("Quick got a buffer holding %.40q…", answer.Bytes())
			}
			if answer.Cap() > maxPooledAnswer {
				t.Errorf("Quick got a buffer of %d bytes, over the %d kept", answer.Cap(), maxPooledAnswer)
			}
			for k, v := range answers {
				if strings.Contains(string(body), `"name":"`+k+`"`) {
					answer.WriteString(v)
					return true
				}
			}
			return false // whoami: the MCP server's
		}
	})
	call := func(tool string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool)
		w := h.do(mcpRequest(http.MethodPost, secretA, "2025-11-25", body))
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tool, w.Code, w.Body)
		}
		return w.Body.String()
	}
	for _, tool := range []string{"long", "short", "whoami", "huge", "short", "long", "short"} {
		got := call(tool)
		want, quick := answers[tool]
		if quick && got != want {
			t.Errorf("%s: answer %.60q…, want %.60q…", tool, got, want)
		}
		if !quick && !strings.Contains(got, `app-a`) {
			t.Errorf("%s: the MCP server's answer is %.200q", tool, got)
		}
	}
}
