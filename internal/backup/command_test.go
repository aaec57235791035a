package backup

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// TestHelperBackupCommand is the backup command of the tests below, run
// as a child process: it appends the archive it is given to a file, and
// fails the first time.
func TestHelperBackupCommand(t *testing.T) {
	log := os.Getenv("CORTEX_TEST_COMMAND_LOG")
	if log == "" {
		t.Skip("run as a backup command only")
	}
	args := flagArgs()
	_, err := os.Stat(log)
	first := os.IsNotExist(err)
	f, _ := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	fmt.Fprintf(f, "%s %s\n", strings.Join(args, " "), os.Getenv("CORTEX_BACKUP_FILE"))
	f.Close()
	if first {
		fmt.Fprintln(os.Stderr, "upload failed: bucket not found")
		os.Exit(3)
	}
	os.Exit(0)
}

// flagArgs are the arguments after "--".
func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}

// A backup command that fails is logged and recorded (for status), and
// the next scheduled backup is handed to it again.
func TestScheduledBackupCommand(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	st, err := store.Open(context.Background(), stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cmdLog := filepath.Join(t.TempDir(), "calls")
	t.Setenv("CORTEX_TEST_COMMAND_LOG", cmdLog)
	clock := &fakeClock{t: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), waits: make(chan time.Duration), fire: make(chan time.Time)}
	var logs bytes.Buffer
	var logMu sync.Mutex
	s := &Schedule{Dir: filepath.Join(t.TempDir(), "backups"), Every: 24 * time.Hour, Keep: 3, Record: st, After: clock.after,
		Logger:  slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil)),
		Backup:  Options{Vault: vaultDir, State: stateDir, Now: clock.now},
		Command: []string{os.Args[0], "-test.run=^TestHelperBackupCommand$", "--", "copy", ArchiveArg, "remote:cortex"}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()

	<-clock.waits
	first, err := st.LastBackup(context.Background())
	if err != nil || first.Result != store.BackupOK || first.Command != store.CommandFailed ||
		!strings.Contains(first.CommandDetail, "exited 3: upload failed: bucket not found") {
		t.Fatalf("first backup %+v %v", first, err)
	}
	logMu.Lock()
	if !strings.Contains(logs.String(), `level=ERROR msg="backup command failed`) || !strings.Contains(logs.String(), "bucket not found") {
		t.Errorf("not logged:\n%s", logs.String())
	}
	logMu.Unlock()
	clock.advance(24 * time.Hour)
	<-clock.waits
	second, err := st.LastBackup(context.Background())
	if err != nil || second.Command != store.CommandOK || second.Detail == first.Detail {
		t.Fatalf("second backup %+v %v", second, err)
	}
	cancel()
	<-done
	calls, _ := os.ReadFile(cmdLog)
	want := fmt.Sprintf("copy %s remote:cortex %s\ncopy %s remote:cortex %s\n", first.Detail, first.Detail, second.Detail, second.Detail)
	if string(calls) != want {
		t.Errorf("command ran as\n%s\nwant\n%s", calls, want)
	}
}
