package console

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-mcp/cortex/internal/owner"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

type statusData struct {
	Nav, Title, CSRF string
	Form             string // the page's form id
	Zone             *time.Location
	ZoneForm         zoneForm
	Version, Go      string
	Stats            vault.Stats
	Floor            uint64
	Low              bool
	Indexed          bool
	History          store.HistoryStats
	HistoryErr       bool
	Session          owner.SessionInfo
	Recent           bool
	Backup           backupData
	// Sizes in MiB, as shown.
	FreeMiB, FloorMiB, StoredMiB, SizeMiB, MaxMiB string
	// How the history keeps under its cap: the room made since the
	// server started, whether only live notes' newest versions are left
	// (it is above the cap), and what each writer's past texts take.
	Room        store.HistoryRoom
	RoomWriters string
	OverCap     bool
	Writers     []writerData
	ShareMiB    string
}

// writerData is one writer's part of the history, as shown.
type writerData struct {
	Name, MiB string
	Over      bool // over its share: its texts go first at the cap
}

func mib[T int64 | uint64](n T) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }

// statusPage shows what the owner checks first: version, disk against the
// floor, notes, the index, the history's size and retention; and the
// console's time zone, with the form that sets it.
func (c *Console) statusPage(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) error {
	d, err := c.statusData(w, r, s)
	if err != nil {
		return err
	}
	c.pages.Render(w, http.StatusOK, "status.html", d)
	return nil
}

func (c *Console) statusData(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (statusData, error) {
	ctx := r.Context()
	d := statusData{Nav: "status", Title: "Status", CSRF: c.o.Owner.CSRFToken(w, r), Form: c.out.formID(), Zone: c.zone(ctx),
		Version: c.o.Version, Go: runtime.Version(), Floor: c.o.MinFree, Indexed: c.o.Vault.Indexed(), Session: s, Recent: c.recent(s)}
	d.ZoneForm.Value = d.Zone.String()
	if d.Version == "" {
		d.Version = "(development build)"
	}
	var err error
	if d.Stats, err = c.o.Vault.Stats(ctx); err != nil {
		return d, refusal(err)
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
	if c.o.HistoryDB != nil && !d.HistoryErr {
		d.Room = c.o.HistoryDB.Room()
		d.RoomWriters = strings.Join(d.Room.Writers, ", ")
		d.OverCap = d.History.Stored > d.History.MaxBytes
		d.ShareMiB = mib(d.History.Share)
		for _, w := range d.History.Writers {
			d.Writers = append(d.Writers, writerData{Name: w.Writer, MiB: mib(w.Stored), Over: w.Stored > d.History.Share})
		}
	}
	d.Backup = c.backupStatus(ctx)
	return d, nil
}

// backupData is the last backup's outcome as the status page shows it.
type backupData struct {
	None, Err bool
	Last      store.BackupRun
	OK        bool
	SizeMiB   string
	Good      *store.BackupRun // the last good one, when the last did not succeed
}

// backupStatus reads what `cortex admin status` shows of backups.
func (c *Console) backupStatus(ctx context.Context) backupData {
	var b backupData
	last, err := c.o.Store.LastBackup(ctx)
	switch {
	case errors.Is(err, store.ErrNoBackup):
		b.None = true
		return b
	case err != nil:
		c.log.Error("last backup", "err", err)
		b.Err = true
		return b
	}
	b.Last, b.OK, b.SizeMiB = last, last.Result == store.BackupOK, mib(max(last.Size, 0))
	if !b.OK {
		if good, err := c.o.Store.LastGoodBackup(ctx); err == nil {
			b.Good = &good
		} else if !errors.Is(err, store.ErrNoBackup) {
			c.log.Error("last good backup", "err", err)
		}
	}
	return b
}
