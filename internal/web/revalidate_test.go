package web

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestStreamEndsWhenItsTokenIsRevoked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var valid atomic.Bool
		valid.Store(true)
		s := &Server{logger: slog.New(slog.DiscardHandler), verify: func(ctx context.Context, secret string) (Identity, error) {
			if secret == "ctx_good" && valid.Load() {
				return Identity{Subject: "token:a", App: "a"}, nil
			}
			return Identity{}, ErrUnknownToken
		}}
		ctx, stop := s.whileValid(context.Background(), "ctx_good")
		defer stop()

		time.Sleep(3 * revalidateEvery)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("a stream with a valid token was ended")
		}
		valid.Store(false) // `cortex admin token revoke`
		time.Sleep(revalidateEvery)
		synctest.Wait()
		if ctx.Err() == nil {
			t.Fatal("a stream outlived its token's revocation")
		}
	})
}

func TestStreamWatchStopsWithTheRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &Server{logger: slog.New(slog.DiscardHandler), verify: func(context.Context, string) (Identity, error) {
			return Identity{}, nil
		}}
		_, stop := s.whileValid(context.Background(), "ctx_good")
		stop()
		synctest.Wait() // the watcher goroutine has exited, or synctest reports it
	})
}
