// Package history is the owner's view of the notes' past: the versions of
// a note, the differences between two of them, restoring one, and undoing
// what the journal says an app did (one change, or everything since a
// time). Both `cortex admin` and the web console call it; its types are
// plain values for them to render.
//
// It also connects the vault to the store: Keeper lets the vault keep each
// version in the store's history database before it replaces a note. It
// reaches notes only through internal/vault and stored state only through
// internal/store, and never logs note contents.
package history

import (
	"context"
	"errors"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// Keeper adapts the store's history database to what the vault calls
// before every write.
func Keeper(h *store.HistoryDB) vault.Versions { return keeper{h} }

type keeper struct{ h *store.HistoryDB }

func (k keeper) Keep(ctx context.Context, vs []vault.Kept) ([]int64, error) {
	items := make([]store.Keep, len(vs))
	for i, v := range vs {
		items[i] = store.Keep{
			Path: v.Path, Content: v.Content, Writer: v.Writer, Kind: v.Kind,
			Gone: v.Gone, Observed: v.Observed,
		}
	}
	// The size cap never refuses a write (the history makes room, or
	// grows past it when only live notes' newest versions are left): only
	// the disk floor does.
	ids, err := k.h.Keep(ctx, items)
	if errors.Is(err, store.ErrHistoryDiskLow) {
		return nil, &vault.Error{Code: vault.CodeDiskLow, Err: err,
			Message: "The disk is nearly full, so the note's history cannot grow and writes are paused; ask the owner to free some space."}
	}
	return ids, err
}

func (k keeper) Drop(ctx context.Context, ids []int64) error { return k.h.Drop(ctx, ids) }
