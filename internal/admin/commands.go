package admin

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cortex-mcp/cortex/internal/config"
)

// command is one row of the command table. Adding a subcommand is adding a
// row to commands: its words, positional arguments, flags and run function.
type command struct {
	name    string   // words after "cortex admin", e.g. "token create"
	args    []string // positional arguments; "[X]" marks an optional one
	flags   []flagSpec
	summary string
	// creates lets the command create the state database when the state
	// folder has none (it says so). Every other command refuses.
	creates bool
	// stateless commands never use the state folder (and take no --state).
	stateless bool
	run       func(ctx context.Context, s *session, args []string) error
}

// flagSpec is one flag a command takes, parsed by the flag package.
type flagSpec struct {
	name     string // without dashes
	value    string // placeholder in usage ("URL", "URI..."); "" for a boolean
	usage    string
	required bool // shown without brackets; the command checks it, with its own hint
	// field points into the session: *string, *bool or a flag.Value. A
	// string's current value (the Env default) is its default.
	field func(*session) any
	// check, when set, validates the value after parsing.
	check func(*session) error
}

// The flags commands declare. --state is every command's.
func flagState() flagSpec {
	return flagSpec{name: "state", value: "DIR", usage: "state folder holding cortex.db (default $CORTEX_STATE, else " + config.DefaultState + ")",
		field: func(s *session) any { return &s.state }}
}

func flagVault() flagSpec {
	return flagSpec{name: "vault", value: "DIR", usage: "vault folder holding the notes (default: the vault the server last started with, else $CORTEX_VAULT, else " + config.DefaultVault + ")",
		field: func(s *session) any { return &s.vault }}
}

func flagPublicURL() flagSpec {
	return flagSpec{name: "public-url", value: "URL", usage: "cortex's public URL, as the apps reach it (default $CORTEX_PUBLIC_URL)",
		field: func(s *session) any { return &s.publicURL },
		check: func(s *session) error {
			if s.publicURL == "" {
				return nil
			}
			// Parsed once, as the server parses it, so the passkey origin matches.
			u, err := config.ParsePublicURL(s.publicURL)
			if err != nil {
				return usage(publicURLHint, "--public-url: %v", err)
			}
			s.url = u
			return nil
		}}
}

func flagForce() flagSpec {
	return flagSpec{name: "force", usage: "replace an existing owner", field: func(s *session) any { return &s.force }}
}

func flagYes() flagSpec {
	return flagSpec{name: "yes", usage: "do not ask for confirmation", field: func(s *session) any { return &s.yes }}
}

// commands is the command table.
func commands() []command {
	return append([]command{
		{name: "token create", args: []string{"NAME"}, creates: true, run: tokenCreate,
			flags:   []flagSpec{flagRead(false), flagWrite(false), flagPrivate()},
			summary: "create a bearer token for a command-line agent and print it"},
		{name: "token list", run: tokenList,
			summary: "list the live tokens and their scope"},
		{name: "token revoke", args: []string{"NAME"}, run: tokenRevoke,
			summary: "revoke a token; agents using it are refused at once"},
		{name: "token scope", args: []string{"NAME"}, flags: scopeChangeFlags(), run: tokenScope,
			summary: "change the part of the vault a live token may use, from its next request"},
		{name: "status", flags: []flagSpec{flagVault()}, run: status,
			summary: "show the vault, note count, free disk and tokens"},

		{name: "setup", flags: []flagSpec{flagForce(), flagPublicURL()}, creates: true, run: ownerSetup,
			summary: "create the owner: TOTP secret, recovery codes and a passkey enrolment link (shown once)"},
		{name: "passkey add", flags: []flagSpec{flagPublicURL()}, run: passkeyAdd,
			summary: "print a one-time link (10 minutes) to add a passkey"},
		{name: "passkey list", run: passkeyList,
			summary: "list the owner's passkeys"},
		{name: "passkey remove", args: []string{"ID"}, run: passkeyRemove,
			summary: "remove a passkey"},
		{name: "recovery regenerate", run: recoveryRegenerate,
			summary: "void every recovery code and print ten new ones"},
		{name: "unlock-totp", run: unlockTOTP,
			summary: "allow TOTP codes again after too many wrong ones"},
		{name: "reset", flags: []flagSpec{flagYes()}, run: ownerReset,
			summary: "remove the owner and every passkey, code, login session and app approval"},

		{name: "clients add", run: clientsAdd, flags: []flagSpec{
			{name: "name", value: "NAME", usage: "the app's name as the owner will see it", required: true,
				field: func(s *session) any { return &s.name }},
			{name: "redirect-uri", value: "URI...", usage: "a redirect URI of the app (repeat the flag for more)", required: true,
				field: func(s *session) any { return &s.redirects }},
			{name: "secret", usage: "issue a client secret (client_secret_post)",
				field: func(s *session) any { return &s.secret }},
		}, summary: "pre-register an OAuth app (e.g. Meta AI) and print its client id (and secret, once)"},
		{name: "clients list", run: clientsList,
			summary: "list OAuth apps and bearer tokens with their scope, last use and live grants"},
		{name: "clients revoke", args: []string{"ID"}, run: clientsRevoke,
			summary: "remove an OAuth app (or bearer token): all its tokens stop at once"},
		{name: "clients reads", args: []string{"ID"}, run: clientsReads, flags: []flagSpec{
			{name: "since", value: "TIME", usage: "from this time on: 2006-01-02T15:04:05Z, 2006-01-02 15:04 (UTC), or a duration ago such as 24h (default: all that is kept)",
				field: func(s *session) any { return &s.readsSince }},
		}, summary: "list the notes an OAuth app (or bearer token) was shown, with counts and the last time"},
		{name: "clients scope", args: []string{"ID"}, flags: scopeChangeFlags(), run: clientsScope,
			summary: "change the part of the vault an OAuth app (or bearer token) may use, from its next request"},
		{name: "clients show", args: []string{"ID"}, run: clientsShow,
			summary: "show an OAuth app (or bearer token): its scope, last use and address, the notes it read and changed"},
	}, append(historyCommands(), backupCommands()...)...)
}

// allFlags are c's own flags followed by --state.
func (c *command) allFlags() []flagSpec {
	if c.stateless {
		return c.flags
	}
	return append(append([]flagSpec(nil), c.flags...), flagState())
}

// argCount gives the fewest and most positional arguments c takes.
func (c *command) argCount() (lo, hi int) {
	for _, a := range c.args {
		if !strings.HasPrefix(a, "[") {
			lo++
		}
		hi++
	}
	return lo, hi
}

// synopsis is the command with its arguments and own flags, as help lists it.
func (c *command) synopsis() string {
	parts := append([]string{c.name}, c.args...)
	for _, f := range c.flags {
		parts = append(parts, f.synopsis())
	}
	return strings.Join(parts, " ")
}

func (c *command) usageLine() string {
	if c.stateless {
		return c.synopsis()
	}
	return c.synopsis() + " " + flagState().synopsis()
}

func (f flagSpec) synopsis() string {
	s := "--" + f.name
	if f.value != "" {
		s += " " + f.value
	}
	if !f.required {
		s = "[" + s + "]"
	}
	return s
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: cortex admin COMMAND [ARGS] [--state DIR]\n\ncommands:\n")
	var lines [][2]string
	for _, c := range commands() {
		lines = append(lines, [2]string{c.synopsis(), c.summary})
	}
	lines = append(lines, [2]string{"help [COMMAND]", "show this help, or the help of one command"})
	printTable(w, lines)
	fmt.Fprintf(w, "\n--state DIR defaults to $CORTEX_STATE, else %s.\n", config.DefaultState)
	fmt.Fprintf(w, "`cortex admin help COMMAND` shows a command's flags.\n")
}

// printGroup lists the commands of a group such as "token" and reports
// whether there are any.
func printGroup(w io.Writer, group string) bool {
	var lines [][2]string
	for _, c := range commands() {
		if strings.Fields(c.name)[0] == group {
			lines = append(lines, [2]string{c.synopsis(), c.summary})
		}
	}
	if len(lines) == 0 {
		return false
	}
	fmt.Fprintf(w, "usage: cortex admin %s ... [--state DIR]\n\ncommands:\n", group)
	printTable(w, lines)
	fmt.Fprintf(w, "\n`cortex admin help COMMAND` shows a command's flags.\n")
	return true
}

// printTable writes synopsis and summary pairs in two columns. A long
// synopsis gets its summary on the next line, so that one command does not
// push every summary to the right.
func printTable(w io.Writer, lines [][2]string) {
	const most = 36
	width := 0
	for _, l := range lines {
		if n := len(l[0]); n <= most {
			width = max(width, n)
		}
	}
	for _, l := range lines {
		if len(l[0]) > width {
			fmt.Fprintf(w, "  %s\n  %*s   %s\n", l[0], width, "", l[1])
			continue
		}
		fmt.Fprintf(w, "  %-*s   %s\n", width, l[0], l[1])
	}
}

func printUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: cortex admin %s\n\n%s\n\nflags:\n", c.usageLine(), c.summary)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, f := range c.allFlags() {
		fmt.Fprintf(tw, "  %s\t%s\n", strings.Trim(f.synopsis(), "[]"), f.usage)
	}
	tw.Flush()
}
