package admin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

func init() {
	validArgs["backup"] = []string{"--to", "backups-never-made"}
}

// A backup made by the command verifies, restores into new folders, and
// the restored state holds the token; restore refuses a folder in use.
func TestBackupVerifyRestore(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")
	if err := os.MkdirAll(filepath.Join(env.VaultDir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.VaultDir, "notes", "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "backups")
	r := run(t, env, "backup", "--to", to)
	if r.code != 0 {
		t.Fatalf("backup: exit %d, %s", r.code, r.stderr)
	}
	file := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(file, to+string(filepath.Separator)+"cortex-backup-") {
		t.Fatalf("backup printed %q", file)
	}
	sum, err := os.ReadFile(file + ".sha256")
	if err != nil || !strings.Contains(r.stderr, "sha256 "+strings.Fields(string(sum))[0]) {
		t.Errorf("backup's sha256: printed %q, file %q %v", r.stderr, sum, err)
	}
	r = run(t, env, "backup", "verify", file)
	if r.code != 0 || !strings.Contains(r.stdout, "notes      1") || !strings.Contains(r.stdout, "1 bearer token, 0 journal entries") ||
		!strings.Contains(r.stdout, "(matches "+filepath.Base(file)+".sha256)") || !strings.Contains(r.stdout, "matches: this server") {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Elsewhere, without this server's key: said plainly.
	other := env
	other.StateDir = t.TempDir()
	if r := run(t, other, "backup", "verify", file); r.code != 0 || !strings.Contains(r.stdout, "not checked: signed with a key that is not in") {
		t.Errorf("verify without the key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	dst := t.TempDir()
	r = run(t, env, "restore", file, "--vault", filepath.Join(dst, "vault"), "--state", filepath.Join(dst, "state"))
	if r.code != 0 {
		t.Fatalf("restore: exit %d, %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "vault", "notes", "a.md")); err != nil || string(b) != "# A\n" {
		t.Errorf("restored note %q %v", b, err)
	}
	env2 := env
	env2.StateDir = filepath.Join(dst, "state")
	if r := run(t, env2, "token", "list"); r.code != 0 || !strings.Contains(r.stdout, "laptop") {
		t.Errorf("restored tokens: %s %s", r.stdout, r.stderr)
	}
	r = run(t, env, "restore", file, "--vault", filepath.Join(dst, "vault"), "--state", filepath.Join(dst, "state2"))
	if r.code != 1 || !strings.Contains(r.stderr, "the folder is not empty (it holds notes)") {
		t.Errorf("restore over a vault: exit %d, %s", r.code, r.stderr)
	}
	r = run(t, env, "restore", file, "--vault", filepath.Join(dst, "vault2"), "--state", env.StateDir)
	if r.code != 1 || !strings.Contains(r.stderr, "it is a state folder") {
		t.Errorf("restore over the live state: exit %d, %s", r.code, r.stderr)
	}
	r = run(t, env, "restore", file, "--vault", filepath.Join(dst, "s3", "vault"), "--state", filepath.Join(dst, "s3"))
	if r.code != 1 || !strings.Contains(r.stderr, "neither inside the other") {
		t.Errorf("restore with the vault inside the state: exit %d, %s", r.code, r.stderr)
	}
	env3 := env
	env3.StateDir = filepath.Join(dst, "state")
	if err := store.MarkRestoring(env3.StateDir); err != nil {
		t.Fatal(err)
	}
	if r := run(t, env3, "token", "list"); r.code != 1 || !strings.Contains(r.stderr, "did not finish") || !strings.Contains(r.stderr, "run `cortex admin restore") {
		t.Errorf("token list on an unfinished restore: exit %d, %s", r.code, r.stderr)
	}
	if r := run(t, env, "backup", "verify", to); r.code != 1 || !strings.Contains(r.stderr, "is a folder, not a backup") {
		t.Errorf("verify of a folder: exit %d, %s", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 2 {
		t.Errorf("refused restores left %v", ents)
	}
}

// status shows what the backup command made of the latest backup.
func TestStatusShowsBackupCommand(t *testing.T) {
	env := testEnv(t)
	createToken(t, env, "laptop")
	st, err := store.Open(context.Background(), env.StateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.RecordBackup(context.Background(), store.BackupRun{Time: time.Now(), Result: store.BackupOK, Detail: "/b/cortex-backup-1.tar.gz",
		Command: store.CommandFailed, CommandDetail: "rclone exited 1: bucket not found"})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, env, "status")
	if !strings.Contains(r.stdout, "backup command") || !strings.Contains(r.stdout, "failed: rclone exited 1: bucket not found") {
		t.Errorf("status:\n%s%s", r.stdout, r.stderr)
	}
}
