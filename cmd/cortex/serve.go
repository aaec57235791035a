package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/backup"
	"github.com/cortex-mcp/cortex/internal/certs"
	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/console"
	"github.com/cortex-mcp/cortex/internal/history"
	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/oauth"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/profile"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/web"
)

var errHelp = errors.New("help shown")

func newLogger(w io.Writer, format, level string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func certOptions(cfg config.Config, log *slog.Logger) certs.Options {
	return certs.Options{
		Mode:           cfg.TLS,
		PublicURL:      cfg.PublicURL,
		CacheDir:       filepath.Join(cfg.State, "acme"),
		DirectoryURL:   cfg.ACMEDirectory,
		Email:          cfg.ACMEEmail,
		HTTPAddr:       cfg.HTTPAddr,
		HTTPSAddr:      cfg.HTTPSAddr,
		ListenAddr:     cfg.Listen,
		TrustedProxies: cfg.TrustedProxies,
		// Clients reach the acme listeners directly: no source may hold
		// more than 64 connections, nor everyone more than 4096.
		WrapListener: func(ln net.Listener) net.Listener { return httpx.LimitConnections(ln, 64, 4096) },
		Logger:       log,
	}
}

func serve(ctx context.Context, prog string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := config.Parse(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			return errHelp
		}
		return err
	}
	log := newLogger(stderr, cfg.LogFormat, cfg.LogLevel)
	// Before the index is built, so that the build's peak is bounded too.
	if mem := setMemoryLimit(cfg.MemoryLimit, getenv, config.HostRoot(), log); mem.FollowLive {
		defer followLiveHeap(mem.Bytes, log)()
	}
	for _, name := range cfg.Retired {
		log.Warn("this setting is retired and ignored: /mcp keeps no MCP sessions; remove it", "setting", name)
	}
	// CORTEX_CPU_PROFILE=FILE profiles the whole run (unset by default).
	stopProfile, err := profile.Start(getenv("CORTEX_CPU_PROFILE"))
	if err != nil {
		return fmt.Errorf("CORTEX_CPU_PROFILE: %w", err)
	}
	defer stopProfile()
	redirects, err := oauth.ParseRedirectAllowlist(cfg.RedirectAllowlist)
	if err != nil {
		return &config.Error{Setting: "--redirect-allowlist", Problem: err.Error(),
			Hint: "list redirect URIs separated by commas, e.g. defaults,https://app.example/callback"}
	}

	st, err := store.Open(ctx, cfg.State, store.Options{Logger: log, Version: version})
	if err != nil {
		return err // it says "open state database: ..." itself
	}
	defer st.Close()

	hist, err := store.OpenHistory(ctx, cfg.State, store.HistoryOptions{
		Logger: log, Days: cfg.HistoryDays, MaxBytes: cfg.HistoryMaxBytes,
		MinFree: cfg.MinFreeBytes, FreeSpace: func() (uint64, error) { return vault.FreeSpace(cfg.State) },
	})
	if err != nil {
		return err // it says "open note history: ..." itself
	}
	defer hist.Close()
	v, err := vault.Open(vault.Options{
		Dir:          cfg.Vault,
		Denied:       cfg.Deny,
		Private:      cfg.Private,
		Instructions: cfg.Instructions,
		MinFree:      cfg.MinFreeBytes,
		Index:        true,
		History:      history.Keeper(hist),
		BulkRead:     bulkRead,
		Logger:       log,
	})
	if err != nil {
		return fmt.Errorf("open the vault: %w", err)
	}
	defer v.Close()
	// The rules every app is held to, as cortex read them, so that the
	// operator sees at once what a pattern covers.
	log.Info("vault access rules", "deny", strings.Join(append([]string{".git/", ".obsidian/", ".cortex/"}, cfg.Deny...), ","),
		"private", strings.Join(cfg.Private, ","))
	if seeded, err := v.SeedWelcome(ctx); err != nil {
		log.Warn("could not write the welcome note", "err", err)
	} else if seeded {
		log.Info("the vault was empty; wrote a welcome note")
	}

	// In the plain modes cortex listens itself, before building the rest, so
	// that a port of 0 gives the public URL its real port.
	var ln net.Listener
	if cfg.TLS != certs.ModeACME {
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
		}
		defer ln.Close()
		if cfg.PublicURL.IsZero() {
			if cfg.PublicURL, err = config.PublicURLFromListen(ln.Addr().String()); err != nil {
				return err
			}
		}
	}
	co := certOptions(cfg, log)
	co.Listener = ln
	edge, err := certs.New(co)
	if err != nil {
		return err
	}

	publicURL := cfg.PublicURL.String()
	// `cortex admin status` reads this, given only the state folder.
	if err := st.RecordServed(ctx, store.Served{Vault: cfg.Vault, PublicURL: publicURL}); err != nil {
		log.Warn("could not record the vault and public URL in the state", "err", err)
	}
	own, err := owner.New(owner.Options{Store: st, PublicURL: cfg.PublicURL, Logger: log})
	if err != nil {
		return err
	}
	as, err := oauth.New(oauth.Options{Store: st, Owner: own, PublicURL: cfg.PublicURL, Logger: log.With("component", "oauth"),
		RedirectAllowlist: redirects, TopFolders: topFolders(v)})
	if err != nil {
		return err
	}

	past := history.New(history.Options{Vault: v, History: hist, Journal: st})
	con, err := console.New(console.Options{Owner: own, Vault: v, Store: st, Logger: log, Version: version,
		HistoryDB: hist, MinFree: cfg.MinFreeBytes, History: past, PublicURL: cfg.PublicURL})
	if err != nil {
		return err
	}

	// What each app read is written in the background; its last write
	// happens after the server stopped and before the store closes.
	reads := tools.NewReadRecorder(st, tools.ReadRecorderOptions{Logger: log})
	readsCtx, stopReads := context.WithCancel(ctx)
	readsDone := make(chan struct{})
	go func() { reads.Run(readsCtx); close(readsDone) }()
	defer func() { stopReads(); <-readsDone }()

	deps := tools.Deps{Vault: v, Journal: tools.CacheJournal(st), Reads: reads, History: past, PublicURL: cfg.PublicURL, Logger: log, Version: version}
	servers := tools.NewServers(deps)
	srv, err := web.New(web.Options{
		PublicURL: cfg.PublicURL,
		Verify:    verifier(st, as),
		NewMCPServer: func(r *http.Request) *mcp.Server {
			instructions, err := v.Instructions(r.Context())
			if err != nil {
				log.Warn("could not read the instructions file", "err", err)
			}
			return servers.For(instructions)
		},
		Quick:               servers.Quick,
		Owner:               own,
		OAuth:               as,
		Console:             con,
		Health:              v.Check,
		ResourceMetadataURL: as.ResourceMetadataURL(),
		ChallengeScope:      oauth.DefaultScope,
		WriteScope:          oauth.ScopeWrite,
		IsWriteTool:         tools.IsWriteTool,
		RatePerMinute:       cfg.RatePerMinute,
		Logger:              log,
	})
	if err != nil {
		return err
	}

	go prune(ctx, st, as, hist, cfg.JournalDays, log)
	if cfg.BackupDir != "" {
		sched := &backup.Schedule{Dir: cfg.BackupDir, Every: cfg.BackupEvery, Keep: cfg.BackupKeep, Record: st, Command: cfg.BackupCommand,
			Logger: log.With("component", "backup"),
			Backup: backup.Options{Vault: cfg.Vault, State: cfg.State, Version: version,
				MinFree: cfg.MinFreeBytes, FreeSpace: vault.FreeSpace}}
		go sched.Run(ctx)
	}

	log.Info("cortex is serving", "version", version, "vault", cfg.Vault, "public_url", publicURL, "tls", cfg.TLS)
	if cfg.TLS == certs.ModeACME {
		fmt.Fprintf(stderr, "serving %s (certificate from %s)\n", cfg.PublicURL, cfg.ACMEDirectory)
	} else {
		fmt.Fprintf(stderr, "listening on http://%s\n", ln.Addr())
	}
	fmt.Fprintf(stderr, "connect an assistant: TOKEN=$(%s admin token create NAME --state %s)\n", prog, cfg.State)
	return edge.Serve(ctx, srv.Handler())
}

// verifier accepts cortex's own bearer tokens and OAuth access tokens.
func verifier(st *store.Store, as *oauth.Server) web.Verifier {
	tokens := web.StoreVerifier(st)
	return func(ctx context.Context, secret string) (web.Identity, error) {
		if !oauth.IsAccessToken(secret) {
			return tokens(ctx, secret)
		}
		id, err := as.VerifyAccessToken(ctx, secret)
		if errors.Is(err, oauth.ErrInvalidToken) {
			return web.Identity{}, web.ErrUnknownToken
		}
		if err != nil {
			return web.Identity{}, err
		}
		return web.Identity{Subject: id.Subject, App: id.App, Scopes: id.Scopes, Expires: id.Expires, Scope: id.VaultScope}, nil
	}
}

// prune drops journal entries, the record of what apps read and owner
// actions older than their retention, thins the note history to its retention and drops expired
// OAuth state once an hour.
func prune(ctx context.Context, st *store.Store, as *oauth.Server, hist *store.HistoryDB, days int, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		cutoff := time.Now().AddDate(0, 0, -days)
		if n, err := st.PruneJournal(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Warn("pruning the write journal failed", "err", err)
		} else if n > 0 {
			log.Info("pruned the write journal", "entries", n)
		}
		// What apps read is kept as long as what they wrote.
		if n, err := st.PruneReads(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Warn("pruning the record of reads failed", "err", err)
		} else if n > 0 {
			log.Info("pruned the record of reads", "rows", n)
		}
		// Owner actions stay a year, or as long as the journal if longer.
		if n, err := st.PruneOwnerActions(ctx, max(store.OwnerActionsKept, time.Duration(days)*24*time.Hour)); err != nil && ctx.Err() == nil {
			log.Warn("pruning the owner's actions failed", "err", err)
		} else if n > 0 {
			log.Info("pruned the owner's actions", "actions", n)
		}
		if r, err := hist.Prune(ctx); err != nil && ctx.Err() == nil {
			log.Warn("pruning the note history failed", "err", err)
		} else if r.Versions > 0 {
			log.Info("pruned the note history", "versions", r.Versions, "contents", r.Blobs)
		}
		if err := as.Prune(ctx); err != nil && ctx.Err() == nil {
			log.Warn("pruning expired OAuth state failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// topFolders lists the vault's top folders for the consent page, as the
// owner sees them (the trash left out).
func topFolders(v *vault.Vault) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		entries, err := v.List(ctx, "", false)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range entries {
			if e.IsDir && !strings.HasPrefix(e.Path, ".") {
				out = append(out, e.Path)
			}
		}
		return out, nil
	}
}
