package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/tools"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/web"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

func serve(ctx context.Context, prog string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := config.Parse(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			return errHelp
		}
		return err
	}
	log := newLogger(stderr, cfg.LogFormat, cfg.LogLevel)

	st, err := store.Open(ctx, cfg.State, store.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("open the state database: %w", err)
	}
	defer st.Close()

	v, err := vault.Open(vault.Options{
		Dir:          cfg.Vault,
		Denied:       cfg.Deny,
		Instructions: cfg.Instructions,
		MinFree:      cfg.MinFreeBytes,
		Index:        true,
		Logger:       log,
	})
	if err != nil {
		return fmt.Errorf("open the vault: %w", err)
	}
	defer v.Close()
	if seeded, err := v.SeedWelcome(ctx); err != nil {
		log.Warn("could not write the welcome note", "err", err)
	} else if seeded {
		log.Info("the vault was empty; wrote a welcome note")
	}

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if cfg.PublicURL == "" {
		if cfg.PublicURL, err = config.CanonicalURL("http://" + ln.Addr().String()); err != nil {
			ln.Close()
			return err
		}
	}

	own, err := owner.New(owner.Options{Store: st, PublicURL: cfg.PublicURL, Logger: log, TrustedProxies: cfg.TrustedProxies})
	if err != nil {
		ln.Close()
		return err
	}

	deps := tools.Deps{Vault: v, Journal: st, PublicURL: cfg.PublicURL, Logger: log, Version: version}
	srv, err := web.New(web.Options{
		PublicURL: cfg.PublicURL,
		Tokens:    st,
		NewMCPServer: func(r *http.Request) *mcp.Server {
			instructions, err := v.Instructions(r.Context())
			if err != nil {
				log.Warn("could not read the instructions file", "err", err)
			}
			return tools.NewServer(deps, instructions)
		},
		Mount:               own.Routes,
		TrustedProxies:      cfg.TrustedProxies,
		RatePerMinute:       cfg.RatePerMinute,
		MaxSessionsPerToken: cfg.MaxSessions,
		SessionIdle:         cfg.SessionIdle,
		Logger:              log,
	})
	if err != nil {
		ln.Close()
		return err
	}

	go pruneJournal(ctx, st, cfg.JournalDays, log)

	log.Info("cortex is serving", "version", version, "vault", cfg.Vault, "public_url", cfg.PublicURL)
	fmt.Fprintf(stderr, "listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stderr, "connect an assistant: TOKEN=$(%s admin token create NAME --state %s)\n", prog, cfg.State)
	return web.Serve(ctx, ln, srv.Handler(), log)
}

// pruneJournal drops journal entries older than the retention once an hour.
func pruneJournal(ctx context.Context, st *store.Store, days int, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		cutoff := time.Now().AddDate(0, 0, -days)
		if n, err := st.PruneJournal(ctx, cutoff); err != nil && ctx.Err() == nil {
			log.Warn("pruning the write journal failed", "err", err)
		} else if n > 0 {
			log.Info("pruned the write journal", "entries", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
