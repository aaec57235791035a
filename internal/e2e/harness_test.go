package e2e

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	cmd   *exec.Cmd
	logs  *testkit.Buffer
	done  chan error
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
	args := append([]string{"serve", "--vault", in.Vault, "--state", in.State, "--listen", "127.0.0.1:0"}, extra...)
	// The goroutines below use these locals, never the fields: a restart
	// replaces the fields while the previous run's readers may still be
	// draining.
	cmd := exec.Command(in.bin, args...)
	cmd.Env = os.Environ()
	logs := &testkit.Buffer{}
	done := make(chan error, 1)
	in.cmd, in.logs, in.done = cmd, logs, done
	pr, pw, err := os.Pipe()
	if err != nil {
		in.t.Fatal(err)
	}
	cmd.Stderr = pw
	cmd.Stdout = logs
	if err := cmd.Start(); err != nil {
		in.t.Fatal(err)
	}
	pw.Close()
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		found := false
		for sc.Scan() {
			line := sc.Text()
			logs.Write([]byte(line + "\n"))
			if !found && strings.HasPrefix(line, "listening on ") {
				found = true
				urlc <- strings.TrimPrefix(line, "listening on ")
			}
		}
		close(urlc)
	}()
	go func() { done <- cmd.Wait() }()
	select {
	case u, ok := <-urlc:
		if !ok {
			in.t.Fatalf("cortex exited before listening:\n%s", in.logs.String())
		}
		in.URL = u
	case <-time.After(30 * time.Second):
		in.t.Fatalf("cortex did not start:\n%s", in.logs.String())
	}
	in.t.Cleanup(func() { in.stop() })
}

// stop sends SIGTERM and waits for a clean exit.
func (in *instance) stop() error {
	if in.cmd == nil || in.cmd.Process == nil {
		return nil
	}
	_ = in.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-in.done:
		in.cmd = nil
		return err
	case <-time.After(20 * time.Second):
		_ = in.cmd.Process.Kill()
		in.t.Errorf("cortex did not stop on SIGINT:\n%s", in.logs.String())
		in.cmd = nil
		return nil
	}
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
