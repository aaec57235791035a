package console

import (
	"net/http"
	"runtime"
	"strconv"

	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

type statusData struct {
	Nav, Title, CSRF string
	Version, Go      string
	Stats            vault.Stats
	Floor            uint64
	Low              bool
	Indexed          bool
	History          store.HistoryStats
	HistoryErr       bool
	Session          owner.SessionInfo
	Recent           bool
	// Sizes in MiB, as shown.
	FreeMiB, FloorMiB, StoredMiB, SizeMiB, MaxMiB string
}

func mib[T int64 | uint64](n T) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }

// statusPage shows what the owner checks first: version, disk against the
// floor, notes, the index, the history's size and retention.
func (c *Console) statusPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	ctx := r.Context()
	d := statusData{Nav: "status", Title: "Status", CSRF: c.o.Owner.CSRFToken(w, r), Version: c.o.Version,
		Go: runtime.Version(), Floor: c.o.MinFree, Indexed: c.o.Vault.Indexed(), Session: s, Recent: c.recent(s)}
	if d.Version == "" {
		d.Version = "(development build)"
	}
	var err error
	if d.Stats, err = c.o.Vault.Stats(ctx); err != nil {
		return refusal(err)
	}
	d.Low = d.Floor > 0 && d.Stats.FreeBytes < d.Floor
	if c.o.HistoryDB != nil {
		if d.History, err = c.o.HistoryDB.Stats(ctx); err != nil {
			c.log.Error("history stats", "err", err)
			d.HistoryErr = true
		}
	}
	d.FreeMiB, d.FloorMiB = mib(d.Stats.FreeBytes), mib(d.Floor)
	d.StoredMiB, d.SizeMiB, d.MaxMiB = mib(d.History.Stored), mib(d.History.Size), mib(d.History.MaxBytes)
	c.pages.Render(w, http.StatusOK, "status.html", d)
	return nil
}
