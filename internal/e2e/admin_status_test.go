package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAdminStatusFindsTheServedVault is the owner's view: the server runs
// with its vault given to serve only, and `cortex admin status` run with
// nothing but the state folder reports that vault, its notes and the URL.
func TestAdminStatusFindsTheServedVault(t *testing.T) {
	in := newInstance(t)
	in.token("laptop")
	in.start()

	cmd := exec.Command(in.bin, "admin", "status", "--state", in.State)
	cmd.Dir = t.TempDir() // no ./data/vault here to be found by default
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("admin status: %v\n%s%s", err, out.String(), errb.String())
	}
	for _, want := range []string{
		"vault      " + in.Vault + "\n",
		"notes      1\n", // the welcome note serve wrote
		"url        " + in.URL + "\n",
		"state      " + in.State + "\n",
		"tokens     1\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}
