package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
)

// The owner commands: the only way to create, replace or reset the owner
// and to add passkeys, because they need a shell on the server.

const publicURLHint = "pass --public-url https://your.host (the URL the AI apps use to reach cortex)"

func ownerSetup(ctx context.Context, s *session, _ []string) error {
	if s.publicURL == "" {
		return usage(publicURLHint, "setup needs cortex's public URL")
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := owner.Setup(ctx, st, s.url, s.force, s.Now)
	if errors.Is(err, store.ErrOwnerExists) {
		return fail("to replace every factor at once run `cortex admin setup --force`; to add a passkey run `cortex admin passkey add`",
			"the owner is already set up")
	}
	if errors.Is(err, owner.ErrBadPublicURL) {
		return fail(publicURLHint, "%v", err)
	}
	if err != nil {
		return err
	}
	w := s.Stdout
	if s.force {
		fmt.Fprintln(w, "The old owner's passkeys, TOTP secret, recovery codes and sign-ins are void,")
		fmt.Fprintln(w, "and every app connected by OAuth must be approved again. Bearer tokens are kept.")
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "cortex owner set up. Everything below is shown ONCE.")
	fmt.Fprintln(w, "Keep these three in three different places (e.g. a password manager, a phone, paper),")
	fmt.Fprintln(w, "so that losing one never locks you out.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "1. Authenticator app (TOTP): scan this code, or enter the secret by hand.")
	if qr, err := qrText(res.TOTPURI); err == nil {
		fmt.Fprint(w, qr)
	}
	fmt.Fprintf(w, "   %s\n", res.TOTPURI)
	fmt.Fprintf(w, "   secret: %s\n\n", groupSecret(res.TOTPSecret))
	fmt.Fprintln(w, "2. Recovery codes: each works once. Print them or write them down.")
	printCodes(w, res.RecoveryCodes)
	fmt.Fprintln(w)
	if res.EnrolLink != "" {
		fmt.Fprintln(w, "3. Passkey: open this link in the browser that should hold the passkey, within 10 minutes.")
		fmt.Fprintln(w, "   It asks for a code from your authenticator app too, and works once.")
		fmt.Fprintf(w, "   %s\n", res.EnrolLink)
		fmt.Fprintln(w, "   Another link later: cortex admin passkey add")
	} else {
		fmt.Fprintln(w, "3. Passkeys are off: the public URL is an IP address. Use a DNS name to enable them.")
	}
	return nil
}

func printCodes(w io.Writer, codes []string) {
	for i, c := range codes {
		fmt.Fprintf(w, "   %2d. %s\n", i+1, c)
	}
}

// groupSecret splits a base32 secret in blocks of four for typing.
func groupSecret(s string) string {
	var parts []string
	for len(s) > 4 {
		parts = append(parts, s[:4])
		s = s[4:]
	}
	return strings.Join(append(parts, s), " ")
}

func noOwnerErr() error {
	return fail("create the owner first: cortex admin setup --public-url https://your.host", "no owner has been set up")
}

func passkeyAdd(ctx context.Context, s *session, _ []string) error {
	if s.publicURL == "" {
		return usage(publicURLHint, "passkey add needs cortex's public URL")
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	link, expires, err := owner.IssueEnrolLink(ctx, st, s.url, s.Now)
	switch {
	case errors.Is(err, store.ErrNoOwner):
		return noOwnerErr()
	case errors.Is(err, owner.ErrBadPublicURL):
		return fail(publicURLHint, "%v", err)
	case err != nil:
		return err
	}
	fmt.Fprintln(s.Stdout, link)
	fmt.Fprintf(s.Stderr, "Open it in the browser that should hold the passkey before %s; it works once and asks for a TOTP code too.\n",
		formatTime(expires))
	return nil
}

func passkeyList(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := st.Passkeys(ctx)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintln(s.Stderr, "no passkeys; add one with: cortex admin passkey add")
		return nil
	}
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCREATED\tLAST USED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", k.ID, strconv.Quote(k.Name), formatTime(k.Created), lastUse(k.LastUsed))
	}
	return tw.Flush()
}

func passkeyRemove(ctx context.Context, s *session, args []string) error {
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return usage("run `cortex admin passkey list` to see the IDs", "invalid passkey ID %q", args[0])
	}
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.RemovePasskey(ctx, id)
	if errors.Is(err, store.ErrPasskeyNotFound) {
		return fail("run `cortex admin passkey list` to see the IDs", "no passkey with ID %d", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Stderr, "removed passkey %d; it cannot sign in any more.\n", id)
	return nil
}

func recoveryRegenerate(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	codes, err := owner.RegenerateRecoveryCodes(ctx, st)
	if errors.Is(err, store.ErrNoOwner) {
		return noOwnerErr()
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Stderr, "Every old recovery code is void. The new ones, shown once (each works once):")
	printCodes(s.Stdout, codes)
	return nil
}

func unlockTOTP(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.UnlockTOTP(ctx)
	if errors.Is(err, store.ErrNoOwner) {
		return noOwnerErr()
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Stderr, "TOTP codes are accepted again.")
	return nil
}

func ownerReset(ctx context.Context, s *session, _ []string) error {
	st, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Owner(ctx); errors.Is(err, store.ErrNoOwner) {
		return noOwnerErr()
	} else if err != nil {
		return err
	}
	if !s.yes {
		fmt.Fprint(s.Stderr, "This removes the owner, every passkey, the TOTP secret, the recovery codes, all sign-ins and every app's access.\nType \"reset\" to go on: ")
		line, _ := bufio.NewReader(s.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != "reset" {
			return fail("type reset at the prompt, or pass --yes", "reset cancelled; nothing was changed")
		}
	}
	if err := st.DeleteOwner(ctx); err != nil && !errors.Is(err, store.ErrNoOwner) {
		return err
	}
	fmt.Fprintln(s.Stderr, "The owner is removed. Create a new one with: cortex admin setup --public-url https://your.host")
	return nil
}
