// Package admin implements the `cortex admin ...` subcommands the owner runs
// on the server's machine: bearer tokens for command-line agents and a status
// report. It works on the same state database as a running server, through
// internal/store, and never reads or writes notes (status only counts them).
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
	"text/tabwriter"
	"time"

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
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is one row of the command table. Adding a subcommand is adding a
// row to commands.
type command struct {
	name    string // words after "cortex admin", e.g. "token create"
	args    []string
	summary string
	vault   bool // accepts --vault
	run     func(ctx context.Context, s *session, args []string) error
}

// session is what a command runs with: the Env plus the parsed flags.
type session struct {
	Env
	state, vault string
}

func commands() []command {
	return []command{
		{name: "token create", args: []string{"NAME"}, summary: "create a bearer token for a command-line agent and print it", run: tokenCreate},
		{name: "token list", summary: "list the live tokens", run: tokenList},
		{name: "token revoke", args: []string{"NAME"}, summary: "revoke a token; agents using it are refused at once", run: tokenRevoke},
		{name: "status", summary: "show the vault, note count, free disk and tokens", vault: true, run: status},
	}
}

// cliError is a failure as the owner sees it.
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
	var ce *cliError
	if !errors.As(err, &ce) {
		ce = fail("this is unexpected; run the command again, and report it if it persists", "%v", err)
	}
	fmt.Fprintf(env.Stderr, "cortex admin: %s\n", ce.msg)
	if ce.hint != "" {
		fmt.Fprintf(env.Stderr, "hint: %s\n", ce.hint)
	}
	return ce.code
}

func dispatch(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		printHelp(env.Stderr)
		return usage("pick one of the commands above", "missing command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, rest := lookup(allCommands(), args[1:]); c != nil && len(rest) == 0 {
				printUsage(env.Stdout, c)
				return nil
			}
			return usage("run `cortex admin help` to see the commands", "unknown command %q", strings.Join(args[1:], " "))
		}
		printHelp(env.Stdout)
		return nil
	}
	// The owner commands take extra flags and parse them themselves.
	if ok, err := runOwner(ctx, env, args); ok {
		return err
	}
	if ok, err := runClients(ctx, env, args); ok {
		return err
	}
	c, rest := lookup(commands(), args)
	if c == nil {
		return unknown(args)
	}

	s := &session{Env: env}
	fs := flag.NewFlagSet("cortex admin "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&s.state, "state", env.StateDir, "state `DIR` holding cortex.db")
	if c.vault {
		fs.StringVar(&s.vault, "vault", env.VaultDir, "vault `DIR` holding the notes")
	}
	pos, err := parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(env.Stdout, c)
		return nil
	}
	if err != nil {
		return usage(fmt.Sprintf("run `cortex admin help %s`", c.name), "%s: %v", c.name, err)
	}
	if lo, hi := argCount(c); len(pos) < lo || len(pos) > hi {
		return usage(fmt.Sprintf("usage: cortex admin %s", usageLine(c)), "%s: wrong number of arguments", c.name)
	}
	if s.state == "" {
		return usage("pass --state DIR or set CORTEX_STATE", "no state directory given")
	}
	return c.run(ctx, s, pos)
}

// allCommands is every row, for help and for explaining unknown commands.
func allCommands() []command {
	help := command{name: "help", args: []string{"[COMMAND]"}, summary: "show this help, or the help of one command"}
	return append(append(append(commands(), ownerCommands()...), clientCommands()...), help)
}

// lookup finds the command of table whose words start args, the longest one
// first, and returns the remaining arguments.
func lookup(table []command, args []string) (*command, []string) {
	var best *command
	n := 0
	for _, c := range table {
		words := strings.Fields(c.name)
		if len(words) <= len(args) && len(words) > n && equal(words, args[:len(words)]) {
			best, n = &c, len(words)
		}
	}
	if best == nil || best.run == nil {
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
	for _, c := range allCommands() {
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

// argCount gives the fewest and most positional arguments c takes;
// "[X]" marks an optional one.
func argCount(c *command) (lo, hi int) {
	for _, a := range c.args {
		if !strings.HasPrefix(a, "[") {
			lo++
		}
		hi++
	}
	return lo, hi
}

func usageLine(c *command) string {
	parts := []string{c.name}
	parts = append(parts, c.args...)
	parts = append(parts, "[--state DIR]")
	if c.vault {
		parts = append(parts, "[--vault DIR]")
	}
	return strings.Join(parts, " ")
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: cortex admin COMMAND [ARGS] [--state DIR]\n\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, c := range allCommands() {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(append([]string{c.name}, c.args...), " "), c.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n--state DIR defaults to $CORTEX_STATE, else ./data/state.\n")
}

func printUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: cortex admin %s\n\n%s\n", usageLine(c), c.summary)
}

// openStore opens the state database. Commands that only read or revoke pass
// create=false so that a mistyped --state does not leave an empty database
// somewhere unexpected.
func (s *session) openStore(ctx context.Context, create bool) (*store.Store, error) {
	if !create {
		if _, err := os.Stat(filepath.Join(s.state, store.FileName)); errors.Is(err, os.ErrNotExist) {
			return nil, fail("check --state (or CORTEX_STATE); the server creates the database when it first starts",
				"no state database in %s", s.state)
		}
	}
	st, err := store.Open(ctx, s.state, store.Options{Now: s.Now})
	if err != nil {
		return nil, fail("check that --state points at cortex's state directory and that you may write to it",
			"cannot open the state database: %v", err)
	}
	return st, nil
}
