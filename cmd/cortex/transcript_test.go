package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cortex-mcp/cortex/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.txt with the binary's output")

// TestTranscripts runs the real binary through the scripts in testdata and
// compares what it prints with the transcript in the script. A script is a
// series of commands, each a line "$ [VAR=value ...] cortex ARGS...",
// followed by its stdout, its stderr and its exit code; lines starting with
// "#" before a command are kept as comments. $WORK, $STATE and $VAULT name
// the script's own folders (STATE and VAULT are not created). Output that
// changes from run to run (secrets, times, sizes, backup names, durations)
// is replaced by <secret>, <time>, <size>, <stamp> and <duration>. Run with -update to rewrite the transcripts.
func TestTranscripts(t *testing.T) {
	bin := testkit.Cortex(t)
	scripts, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			if work, err = filepath.EvalSymlinks(work); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{"WORK": work, "STATE": filepath.Join(work, "state"), "VAULT": filepath.Join(work, "vault")}
			var got strings.Builder
			for _, step := range parseScript(string(raw)) {
				got.WriteString(step.comments)
				if step.command == "" {
					continue
				}
				fmt.Fprintf(&got, "$ %s\n", step.command)
				got.WriteString(runStep(t, bin, step.command, vars))
			}
			if *update {
				if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got.String() != string(raw) {
				t.Errorf("%s differs from the binary's output (go test ./cmd/cortex -run TestTranscripts -update rewrites it); got:\n%s", path, got.String())
			}
		})
	}
}

type step struct {
	comments string // "#" and blank lines before the command, with newlines
	command  string
}

// parseScript splits a script into its commands; the transcripts between
// them are what the test compares, so they are dropped here.
func parseScript(s string) []step {
	var steps []step
	var cur step
	inOutput := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "$ "):
			cur.command = strings.TrimSpace(strings.TrimPrefix(line, "$ "))
			steps = append(steps, cur)
			cur, inOutput = step{}, true
		case strings.HasPrefix(line, "[exit "):
			inOutput = false
		case !inOutput:
			cur.comments += line
		}
	}
	if cur.comments != "" {
		steps = append(steps, cur)
	}
	return steps
}

var (
	secretRE = regexp.MustCompile(`\b(ctx|cxs)_[A-Za-z0-9_-]{20,}`)
	timeRE   = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d UTC`)
	sizeRE   = regexp.MustCompile(`\b\d+(\.\d)? [KMGTPE]?i?B\b`)
	stampRE  = regexp.MustCompile(`\d{8}T\d{6}Z`)
	tookRE   = regexp.MustCompile(`\bin \d+(\.\d+)?(µs|ms|s)\b`)
)

// runStep runs one command with only PATH and HOME from the environment and
// returns its transcript.
func runStep(t *testing.T, bin, command string, vars map[string]string) string {
	t.Helper()
	words := strings.Fields(os.Expand(command, func(k string) string { return vars[k] }))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + vars["WORK"]}
	for len(words) > 0 && strings.Contains(words[0], "=") {
		env = append(env, words[0])
		words = words[1:]
	}
	if len(words) == 0 || words[0] != "cortex" {
		t.Fatalf("%q: a command runs cortex", command)
	}
	cmd := exec.Command(bin, words[1:]...)
	cmd.Env = env
	cmd.Dir = vars["WORK"]
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%q: %v", command, err)
		}
		code = ee.ExitCode()
	}
	var b strings.Builder
	for _, out := range []struct {
		name string
		text string
	}{{"stdout", stdout.String()}, {"stderr", stderr.String()}} {
		if out.text == "" {
			continue
		}
		text := strings.ReplaceAll(out.text, vars["WORK"], "$WORK")
		text = secretRE.ReplaceAllString(text, "${1}_<secret>")
		text = timeRE.ReplaceAllString(text, "<time>")
		text = sizeRE.ReplaceAllString(text, "<size>")
		text = stampRE.ReplaceAllString(text, "<stamp>")
		text = tookRE.ReplaceAllString(text, "in <duration>")
		if !strings.HasSuffix(text, "\n") {
			text += "\\ (no newline at the end)\n"
		}
		fmt.Fprintf(&b, "[%s]\n%s", out.name, text)
	}
	fmt.Fprintf(&b, "[exit %d]\n", code)
	return b.String()
}
