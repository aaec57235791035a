// Package admin implements the `cortex admin ...` subcommands the owner runs
// on the server's machine: bearer tokens for command-line agents, OAuth apps
// (clients), the owner's sign-in factors (setup, passkeys, recovery codes,
// TOTP unlock, reset), a status report, the notes' history (history,
// restore, undo, history purge) and backups through internal/backup
// (backup, backup verify, and restore of a backup into new folders). Every
// command is one row of the table in commands.go, which also declares the
// command's flags.
//
// It works on the same state databases as a running server, through
// internal/store. Notes are reached only through internal/vault: status
// counts them, backup copies them, and the history commands read and write
// them through internal/history, as the owner's own changes. It never
// reads the process environment: cmd passes the CORTEX_* defaults in Env.
//
// Output rule: what a script wants (a token, a table) goes to stdout, every
// explanation to stderr. Failures print a lowercase message and a "hint:"
// line saying what to do and exit 1; wrong usage exits 2.
package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Env is everything Run takes from its process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StateDir and VaultDir are the defaults for --state and --vault; cmd
	// fills them from CORTEX_STATE / CORTEX_VAULT or their defaults. Run
	// itself never reads the environment.
	StateDir, VaultDir string
	// PublicURL is the default for --public-url (cmd fills it from
	// CORTEX_PUBLIC_URL, so `docker exec cortex cortex admin setup` finds it).
	PublicURL string
	Now       func() time.Time
	// Version is cortex's version, written into backups.
	Version string
	// BackupDir is the default for backup --to ($CORTEX_BACKUP_DIR).
	BackupDir string
	// MinFree is the disk floor ($CORTEX_MIN_FREE_MB; 0: none) that a
	// backup, and the notes a restore or undo writes, never go below.
	MinFree uint64
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// cliError is a failure as the owner sees it: one lowercase line, and a
// hint line saying what to do about it.
type cliError struct {
	code int
	msg  string // lowercase, one line
	hint string
}

func (e *cliError) Error() string { return e.msg }

func fail(hint, format string, a ...any) *cliError {
	return &cliError{code: exitFail, msg: fmt.Sprintf(format, a...), hint: hint}
}

func usage(hint, format string, a ...any) *cliError {
	return &cliError{code: exitUsage, msg: fmt.Sprintf(format, a...), hint: hint}
}

// print writes the error and its hint as Run reports them.
func (e *cliError) print(w io.Writer) {
	fmt.Fprintf(w, "cortex admin: %s\n", e.msg)
	if e.hint != "" {
		fmt.Fprintf(w, "hint: %s\n", e.hint)
	}
}

// Run runs `cortex admin <args...>` and returns the process exit code.
func Run(ctx context.Context, env Env, args []string) int {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	err := dispatch(ctx, env, args)
	if err == nil {
		return exitOK
	}
	ce := asCLIError(err, "this is unexpected; run the command again, and report it if it persists")
	ce.print(env.Stderr)
	return ce.code
}

// asCLIError keeps a refusal that already says what to do, and gives any
// other error the hint.
func asCLIError(err error, hint string) *cliError {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	return fail(hint, "%v", err)
}

// session is what a command runs with: the Env, the command's row and the
// values of every flag (a row's flags say which of them it takes).
type session struct {
	Env
	cmd *command

	// given holds the flags given on the command line (not defaulted).
	given map[string]bool

	state, vault, publicURL string
	url                     config.PublicURL // publicURL, parsed by its flag's check
	force, yes, secret      bool
	name                    string
	redirects               multiFlag
	hist                    historyFlags
	backupTo                string
	readsSince              string
	scope                   scopeFlags
}

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func dispatch(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		printHelp(env.Stderr)
		return usage("pick one of the commands above", "missing command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, rest := lookup(args[1:]); c != nil && len(rest) == 0 {
				printUsage(env.Stdout, c)
				return nil
			}
			if len(args) == 2 && printGroup(env.Stdout, args[1]) {
				return nil
			}
			return usage("run `cortex admin help` to see the commands", "unknown command %q", strings.Join(args[1:], " "))
		}
		printHelp(env.Stdout)
		return nil
	}
	if strings.HasPrefix(args[0], "-") {
		return usage("flags go after the command, e.g. cortex admin token list --state DIR", "flag %s before the command", args[0])
	}
	c, rest := lookup(args)
	if c == nil {
		return unknown(args)
	}
	s, pos, err := parse(env, c, rest)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(env.Stdout, c)
		return nil
	}
	if err != nil {
		return err
	}
	return c.run(ctx, s, pos)
}

// parse reads the flags c declares (and --state, which every command takes)
// with the flag package, anywhere among the positional arguments, and
// checks the number of positional arguments.
func parse(env Env, c *command, args []string) (*session, []string, error) {
	s := &session{Env: env, cmd: c, state: env.StateDir, vault: env.VaultDir, publicURL: env.PublicURL, backupTo: env.BackupDir}
	fs := flag.NewFlagSet("cortex admin "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range c.allFlags() {
		switch p := f.field(s).(type) {
		case *string:
			fs.StringVar(p, f.name, *p, f.usage)
		case *bool:
			fs.BoolVar(p, f.name, *p, f.usage)
		case flag.Value:
			fs.Var(p, f.name, f.usage)
		default:
			panic(fmt.Sprintf("admin: flag --%s has a field of type %T", f.name, p))
		}
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, usage(fmt.Sprintf("run `cortex admin help %s`", c.name), "%s: %v", c.name, err)
	}
	if lo, hi := c.argCount(); len(pos) < lo || len(pos) > hi {
		return nil, nil, usage(fmt.Sprintf("usage: cortex admin %s", c.usageLine()), "%s: wrong number of arguments", c.name)
	}
	s.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { s.given[f.Name] = true })
	if s.state == "" && !c.stateless {
		return nil, nil, usage("pass --state DIR or set CORTEX_STATE", "no state directory given")
	}
	for _, f := range c.allFlags() {
		if f.check != nil {
			if err := f.check(s); err != nil {
				return nil, nil, err
			}
		}
	}
	return s, pos, nil
}

// lookup finds the command whose words start args, the longest one first,
// and returns the remaining arguments.
func lookup(args []string) (*command, []string) {
	var best *command
	n := 0
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(words) <= len(args) && len(words) > n && equal(words, args[:len(words)]) {
			best, n = &c, len(words)
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, args[n:]
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// unknown explains an unknown command, naming the group's subcommands when
// the first word is a known group such as "token".
func unknown(args []string) error {
	var subs []string
	for _, c := range commands() {
		if group, sub, ok := strings.Cut(c.name, " "); ok && group == args[0] {
			subs = append(subs, sub)
		}
	}
	if len(subs) > 0 {
		hint := fmt.Sprintf("use one of: %s", strings.Join(subs, ", "))
		if len(args) > 1 {
			return usage(hint, "unknown %s subcommand %q", args[0], args[1])
		}
		return usage(hint, "%s needs a subcommand", args[0])
	}
	return usage("run `cortex admin help` to see the commands", "unknown command %q", args[0])
}

// parseInterspersed lets flags come after positional arguments, as in
// `cortex admin token create laptop --state /srv/state`.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at "--" or at the first non-flag; after "--" everything
		// is positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// openStore opens the state database. Only the commands whose row says
// creates (setup, token create) may create it, and they say that they did;
// every other command pointed at a folder without cortex's state says so,
// so that a mistyped --state leaves no empty database that no server reads.
// damagedStateHint is what to do about a damaged state database.
const damagedStateHint = "restore the state from a backup (cortex admin restore FILE --vault DIR --state DIR, into empty folders), " +
	"or move cortex.db aside to start again without tokens, apps or the owner"

func (s *session) openStore(ctx context.Context) (*store.Store, error) {
	if err := store.UnfinishedRestore(absPath(s.state)); err != nil {
		return nil, fail("empty the --vault and --state folders of that restore, then run `cortex admin restore FILE --vault DIR --state DIR` again",
			"%v", err)
	}
	_, err := os.Stat(filepath.Join(s.state, store.FileName))
	fresh := errors.Is(err, os.ErrNotExist)
	if fresh && !s.cmd.creates {
		return nil, errNoState(s.state)
	}
	st, err := store.Open(ctx, s.state, store.Options{Now: s.Now})
	if errors.Is(err, store.ErrDamaged) {
		return nil, fail(damagedStateHint, "%v", err)
	}
	if err != nil {
		return nil, fail("check that --state points at cortex's state directory and that you may write to it",
			"%v", err) // it says "open state database: ..." itself
	}
	if fresh {
		fmt.Fprintf(s.Stderr, "created a new state database in %s; start the server with --state %s (or CORTEX_STATE) to use it\n",
			absPath(s.state), absPath(s.state))
	}
	return st, nil
}

func errNoState(dir string) error {
	return fail("check --state (or CORTEX_STATE): it must be the folder the server was started with; `cortex admin setup` or `cortex admin token create` start a new one",
		"no state database in %s: no cortex server or setup has used this folder", absPath(dir))
}
