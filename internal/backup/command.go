package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// ArchiveArg in a backup command stands for the new archive's path; a
// command without it gets the path as its last argument.
const ArchiveArg = "{archive}"

// handOff runs the owner's backup command on the archive at path, with
// no shell (the container image has none): command[0] is run with the
// rest as arguments, ArchiveArg replaced by path. It has at most limit to
// finish. It returns store.CommandOK or store.CommandFailed and a
// sentence saying how it ended, with the last line the command wrote.
func handOff(ctx context.Context, command []string, path string, limit time.Duration) (string, string) {
	args := make([]string, 0, len(command)+1)
	found := false
	for _, a := range command {
		if strings.Contains(a, ArchiveArg) {
			found = true
			a = strings.ReplaceAll(a, ArchiveArg, path)
		}
		args = append(args, a)
	}
	if !found {
		args = append(args, path)
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, args[0], args[1:]...) // #nosec G204 -- the owner's own --backup-command
	// The sidecars' names follow the archive's; the command may want them.
	cmd.Env = append(os.Environ(), "CORTEX_BACKUP_FILE="+path, "CORTEX_BACKUP_SHA256="+path+SumExt)
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	last := out.lastLine()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return store.CommandOK, fmt.Sprintf("%s exited 0 in %s", args[0], took)
	case cctx.Err() != nil && ctx.Err() == nil:
		return store.CommandFailed, fmt.Sprintf("%s did not finish within %s and was stopped%s", args[0], limit, last)
	case errors.As(err, &ee):
		return store.CommandFailed, fmt.Sprintf("%s exited %d%s", args[0], ee.ExitCode(), last)
	}
	return store.CommandFailed, fmt.Sprintf("%s could not be run: %v", args[0], err)
}

// tail keeps the last bytes a command wrote, for its last line.
type tail struct{ b []byte }

const tailMax = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = t.b[len(t.b)-tailMax:]
	}
	return len(p), nil
}

// lastLine is ": LINE" for the last non-empty line written, at most 200
// bytes, or "".
func (t *tail) lastLine() string {
	lines := bytes.Split(bytes.TrimSpace(t.b), []byte("\n"))
	l := strings.TrimSpace(string(lines[len(lines)-1]))
	if l == "" {
		return ""
	}
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return ": " + l
}
