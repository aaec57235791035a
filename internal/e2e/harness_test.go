package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

// instance is one running cortex server with its own vault and state.
type instance struct {
	t     *testing.T
	bin   string
	Vault string
	State string
	URL   string // http://127.0.0.1:PORT
	srv   *testkit.Server
	logs  *testkit.Buffer // the running server's log
}

// newInstance prepares vault and state folders without starting the server.
func newInstance(t *testing.T) *instance {
	t.Helper()
	dir := t.TempDir()
	return &instance{t: t, bin: testkit.Cortex(t), Vault: filepath.Join(dir, "vault"), State: filepath.Join(dir, "state")}
}

// admin runs `cortex admin args...` against the instance's state, given
// only through the environment as a container would.
func (in *instance) admin(args ...string) (stdout, stderr string, err error) {
	in.t.Helper()
	cmd := exec.Command(in.bin, append([]string{"admin"}, args...)...)
	cmd.Env = append(os.Environ(), "CORTEX_STATE="+in.State, "CORTEX_VAULT="+in.Vault)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func (in *instance) token(name string) string {
	in.t.Helper()
	out, errOut, err := in.admin("token", "create", name)
	if err != nil {
		in.t.Fatalf("token create: %v\n%s", err, errOut)
	}
	tok := strings.TrimSpace(out)
	if !strings.HasPrefix(tok, "ctx_") || strings.ContainsAny(tok, " \n") {
		in.t.Fatalf("token create printed %q on stdout; want the token alone", out)
	}
	return tok
}

// start runs `cortex serve` on a free loopback port and waits for its
// "listening on" line.
func (in *instance) start(extra ...string) {
	in.t.Helper()
	in.srv = testkit.StartServer(in.t, testkit.ServerOptions{Bin: in.bin,
		Args: append([]string{"--vault", in.Vault, "--state", in.State}, extra...)})
	in.logs, in.URL = in.srv.Logs, in.srv.URL
}

// stop sends SIGINT and waits for a clean exit.
func (in *instance) stop() error {
	if in.srv == nil {
		return nil
	}
	return in.srv.Stop()
}

// postMCP posts body to /mcp with the bearer token tok, as a streamable
// HTTP client would, and returns the response with its body closed.
func (in *instance) postMCP(tok, body string) *http.Response {
	in.t.Helper()
	req, err := http.NewRequest(http.MethodPost, in.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// connect opens an MCP session with the go-sdk streamable HTTP client.
func (in *instance) connect(ctx context.Context, token string) *mcp.ClientSession {
	in.t.Helper()
	cs, err := in.tryConnect(ctx, token)
	if err != nil {
		in.t.Fatalf("connect: %v\n%s", err, in.logs.String())
	}
	in.t.Cleanup(func() { cs.Close() })
	return cs
}

func (in *instance) tryConnect(ctx context.Context, token string) (*mcp.ClientSession, error) {
	return in.tryConnectAs(ctx, token, "")
}

// connectAs connects as a client of one MCP protocol version ("" for the
// SDK's newest) and checks that it is the one in use.
func (in *instance) connectAs(ctx context.Context, token, version string) *mcp.ClientSession {
	in.t.Helper()
	cs, err := in.tryConnectAs(ctx, token, version)
	if err != nil {
		in.t.Fatalf("connect with %s: %v\n%s", version, err, in.logs.String())
	}
	in.t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; version != "" && got != version {
		in.t.Fatalf("connected with %s, want %s", got, version)
	}
	return cs
}

func (in *instance) tryConnectAs(ctx context.Context, token, version string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{
		Endpoint:             in.URL + "/mcp",
		HTTPClient:           &http.Client{Transport: testkit.Bearer{Token: token}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	return client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
}
