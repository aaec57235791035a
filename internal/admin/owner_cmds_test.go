package admin

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
	"rsc.io/qr"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

type ownerRun struct {
	stdout, stderr string
	err            error
}

func runOwnerCmd(t *testing.T, state string, clk *testkit.Clock, stdin string, args ...string) ownerRun {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, StateDir: state, Now: clk.Now}
	err := dispatch(context.Background(), env, args)
	return ownerRun{out.String(), errOut.String(), err}
}

func wantCLIError(t *testing.T, r ownerRun, code int, msg string) {
	t.Helper()
	var ce *cliError
	if !errors.As(r.err, &ce) || ce.code != code || !strings.Contains(ce.msg, msg) || ce.hint == "" {
		t.Fatalf("got %#v, want exit %d with %q and a hint", r.err, code, msg)
	}
}

const pub = "https://notes.example.org"

func TestOwnerSetupCommand(t *testing.T) {
	state := t.TempDir()
	clk := testkit.NewClock(time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC))

	wantCLIError(t, runOwnerCmd(t, state, clk, "", "setup"), exitUsage, "public URL")

	r := runOwnerCmd(t, state, clk, "", "setup", "--public-url", pub)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, want := range []string{"three different places", "otpauth://totp/cortex:owner@notes.example.org?", "secret: ",
		pub + "/enrol#", "within 10 minutes", "█"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("setup output lacks %q:\n%s", want, r.stdout)
		}
	}
	codes := regexp.MustCompile(`(?m)^\s+\d+\. [0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$`).FindAllString(r.stdout, -1)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes printed, want 10", len(codes))
	}

	// Once only, unless --force.
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "setup", "--public-url", pub), exitFail, "already set up")
	r = runOwnerCmd(t, state, clk, "", "setup", "--force", "--public-url", pub, "--state", state)
	if r.err != nil || !strings.Contains(r.stdout, "void") {
		t.Fatalf("setup --force: %v\n%s", r.err, r.stdout)
	}
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "setup", "--public-url", "ftp://x", "--force"), exitUsage, "--public-url")
	// The URL is canonicalised as the server does it.
	r = runOwnerCmd(t, state, clk, "", "passkey", "add", "--public-url", "HTTPS://Notes.Example.org:443/")
	if r.err != nil || !strings.HasPrefix(r.stdout, pub+"/enrol#") {
		t.Fatalf("passkey add with a non-canonical URL: %v %q", r.err, r.stdout)
	}
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "setup", "--bogus"), exitUsage, "setup")
}

func TestOwnerMaintenanceCommands(t *testing.T) {
	state := t.TempDir()
	clk := testkit.NewClock(time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC))

	// Nothing works before the database exists or the owner is set up.
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "passkey", "list"), exitFail, "no state database")
	if r := runOwnerCmd(t, state, clk, "", "setup", "--public-url", pub); r.err != nil {
		t.Fatal(r.err)
	}

	r := runOwnerCmd(t, state, clk, "", "passkey", "add", "--public-url", pub)
	if r.err != nil || !regexp.MustCompile(`^https://notes\.example\.org/enrol#[A-Za-z0-9_-]{43}\n$`).MatchString(r.stdout) {
		t.Fatalf("passkey add: %v %q", r.err, r.stdout)
	}
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "passkey", "add", "--public-url", "http://192.0.2.1"), exitFail, "DNS name")

	r = runOwnerCmd(t, state, clk, "", "passkey", "list")
	if r.err != nil || !strings.Contains(r.stderr, "no passkeys") {
		t.Fatalf("passkey list: %v %q", r.err, r.stderr)
	}
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "passkey", "remove", "7"), exitFail, "no passkey with ID 7")
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "passkey", "remove", "x"), exitUsage, "invalid passkey ID")
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "passkey", "remove"), exitUsage, "wrong number")

	r = runOwnerCmd(t, state, clk, "", "recovery", "regenerate")
	if r.err != nil || len(strings.Split(strings.TrimSpace(r.stdout), "\n")) != 10 {
		t.Fatalf("recovery regenerate: %v\n%s", r.err, r.stdout)
	}

	st, err := store.Open(context.Background(), state, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		st.RecordTOTPFailure(context.Background(), 50)
	}
	if r := runOwnerCmd(t, state, clk, "", "unlock-totp"); r.err != nil {
		t.Fatal(r.err)
	}
	if o, _ := st.Owner(context.Background()); !o.TOTPLocked.IsZero() {
		t.Fatal("unlock-totp left TOTP locked")
	}

	// reset asks first.
	wantCLIError(t, runOwnerCmd(t, state, clk, "no\n", "reset"), exitFail, "cancelled")
	if _, err := st.Owner(context.Background()); err != nil {
		t.Fatal("a cancelled reset removed the owner")
	}
	if r := runOwnerCmd(t, state, clk, "reset\n", "reset"); r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := st.Owner(context.Background()); !errors.Is(err, store.ErrNoOwner) {
		t.Fatalf("owner after reset: %v", err)
	}
	wantCLIError(t, runOwnerCmd(t, state, clk, "", "reset", "--yes"), exitFail, "no owner")
	runOwnerCmd(t, state, clk, "", "setup", "--public-url", pub)
	if r := runOwnerCmd(t, state, clk, "", "reset", "--yes"); r.err != nil {
		t.Fatal(r.err)
	}
	st.Close()
}

func TestQRText(t *testing.T) {
	s, err := qrText("otpauth://totp/cortex:owner@example.org?secret=JBSWY3DPEHPK3PXP&issuer=cortex")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	width := len([]rune(lines[0]))
	for _, l := range lines {
		if len([]rune(l)) != width {
			t.Fatal("ragged QR lines")
		}
	}
	// Two module rows per line, a quiet zone around.
	if len(lines) < 15 || !strings.Contains(lines[0], "████") {
		t.Fatalf("QR drawing:\n%s", s)
	}
	// Read the drawing back, module by module, and compare with the code.
	code, _ := qr.Encode("otpauth://totp/cortex:owner@example.org?secret=JBSWY3DPEHPK3PXP&issuer=cortex", qr.M)
	for y := 0; y < code.Size; y++ {
		line := []rune(lines[(y+qrQuiet)/2])[3:] // after the indent
		for x := 0; x < code.Size; x++ {
			c := line[x+qrQuiet]
			top := (y+qrQuiet)%2 == 0
			light := c == '█' || (top && c == '▀') || (!top && c == '▄')
			if light == code.Black(x, y) {
				t.Fatalf("module (%d,%d) drawn wrong", x, y)
			}
		}
	}
}
