package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Why a version was dropped to make room under the cap, in the order
// makeRoom tries them.
const (
	// roomRetention: past the retention; the hourly prune would drop it.
	roomRetention = iota
	// roomShare: its text is owned by a writer whose past is over its
	// share (that writer's deleted notes first, then its older versions).
	roomShare
	// roomDeleted: the last text of a note deleted longest ago, with the
	// versions before it at that path.
	roomDeleted
	// roomOldest: an older version whose text is owned by the writer
	// with the most past.
	roomOldest
)

// roomBatch is how many candidates one query of makeRoom returns.
const roomBatch = 256

// retainEvery is how often makeRoom applies the retention itself: the
// hourly Prune does too, so little is past it at any time, and the pass
// reads every version.
const retainEvery = time.Minute

// overRetry is how often makeRoom searches again while the history is
// above its cap with nothing but live notes' newest versions left.
const overRetry = time.Minute

// roomMade counts what one Keep call dropped to make room.
type roomMade struct {
	versions [roomOldest + 1]int64
	writers  []string // whose texts went for their share, or as the most past
	over     bool     // the history stays above its cap
}

func (m *roomMade) add(o roomMade) {
	for i, n := range o.versions {
		m.versions[i] += n
	}
	for _, w := range o.writers {
		m.addWriter(w)
	}
	m.over = m.over || o.over
}

func (m *roomMade) addWriter(w string) {
	if !slices.Contains(m.writers, w) {
		m.writers = append(m.writers, w)
	}
}

func (m *roomMade) dropped() int64 {
	var n int64
	for _, v := range m.versions {
		n += v
	}
	return n
}

// HistoryRoom sums up the room the history made under its cap since it
// was opened (by the server: since it started).
type HistoryRoom struct {
	// Last is when versions were last dropped for room; zero: never.
	Last time.Time
	// Versions dropped, by reason.
	Retention, Share, Deleted, Oldest int64
	// Writers whose texts went for a past over their share, or as the
	// writer with the most past, in the order they were first trimmed.
	Writers []string
}

// Room reports the room made under the cap since the history was opened.
func (h *HistoryDB) Room() HistoryRoom {
	h.roomMu.Lock()
	defer h.roomMu.Unlock()
	r := h.room
	r.Writers = slices.Clone(r.Writers)
	return r
}

// reportRoom logs and records what a committed batch dropped.
func (h *HistoryDB) reportRoom(m roomMade) {
	if n := m.dropped(); n > 0 {
		h.log.Info("note history at its size cap: versions dropped to make room",
			"versions", n, "past_retention", m.versions[roomRetention], "over_share", m.versions[roomShare],
			"deleted_notes", m.versions[roomDeleted], "oldest", m.versions[roomOldest], "writers", m.writers)
		h.roomMu.Lock()
		h.room.Last = h.now()
		h.room.Retention += m.versions[roomRetention]
		h.room.Share += m.versions[roomShare]
		h.room.Deleted += m.versions[roomDeleted]
		h.room.Oldest += m.versions[roomOldest]
		for _, w := range m.writers {
			if !slices.Contains(h.room.Writers, w) {
				h.room.Writers = append(h.room.Writers, w)
			}
		}
		h.roomMu.Unlock()
	}
	if m.over && !h.overCap {
		h.log.Warn("note history above its size cap: only the newest versions of live notes are left; raise --history-max-mb")
	}
	if m.over {
		h.overAt = h.now()
	}
	if m.dropped() > 0 || m.over {
		h.overCap = m.over
	}
}

// makeRoom drops versions until need more bytes fit under the cap, with
// about 1/128 of the cap to spare so that the writes after it do not
// each search for room, and says how many it dropped. It tries, in
// order:
//
//  1. the versions past the retention (what Prune drops; applied here
//     at most once a minute, Prune running hourly besides);
//  2. while a writer's past texts take more than its share (the room the
//     cap leaves beyond the notes as they are, divided evenly among the
//     writers with past texts stored), the texts that writer added, the
//     furthest over its share first: its deleted notes, deleted longest
//     ago first, then its older versions, oldest first;
//  3. deleted notes, deleted longest ago first;
//  4. older versions whose text the writer with the most past texts
//     added, oldest first.
//
// The newest version of a note that has not left its path is never
// dropped: it is the note as it is on disk, which undo and the next
// write's diff start from. When only those are left the history stays
// above the cap (and says so once): a write is refused for the history
// only by the disk floor (checkFloor). A deleted note goes with every
// version it had at its path, so that its path never looks live again.
func (h *HistoryDB) makeRoom(ctx context.Context, tx *sql.Tx, need int64, m *roomMade) (dropped int64, err error) {
	n, err := h.storedIn(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("keep note version: %w", err)
	}
	if n+need <= h.maxBytes {
		return 0, nil
	}
	// Above the cap with only live notes' newest versions left, every
	// write would search the whole history for the little each edit
	// makes past: once a minute is enough.
	if h.overCap && h.now().Sub(h.overAt) < overRetry {
		return 0, nil
	}
	target := h.maxBytes - need - h.maxBytes/128
	if now := h.now(); now.Sub(time.Unix(0, h.retainedAt.Load())) >= retainEvery {
		pr, err := h.pruneIn(ctx, tx)
		if err != nil {
			return 0, fmt.Errorf("keep note version: make room: %w", err)
		}
		h.retainedAt.Store(now.UnixNano())
		h.storedKnown = false
		m.versions[roomRetention] += pr.Versions
		dropped += pr.Versions
	}
	if n, err = h.storedIn(ctx, tx); err != nil {
		return dropped, fmt.Errorf("keep note version: %w", err)
	}
	if n <= target {
		return dropped, nil
	}
	past, err := pastByWriter(ctx, tx)
	if err != nil {
		return dropped, fmt.Errorf("keep note version: make room: %w", err)
	}
	for n > target {
		s, err := h.nextRoom(ctx, tx, past, n)
		if err != nil {
			return dropped, fmt.Errorf("keep note version: make room: %w", err)
		}
		if len(s.victims) == 0 {
			m.over = true
			return dropped, nil
		}
		if s.writer != "" {
			m.addWriter(s.writer)
		}
		for _, v := range s.victims {
			k, err := h.evict(ctx, tx, v, past)
			if err != nil {
				return dropped, fmt.Errorf("keep note version: make room: %w", err)
			}
			m.versions[s.reason] += k
			dropped += k
			if n, err = h.storedIn(ctx, tx); err != nil {
				return dropped, fmt.Errorf("keep note version: %w", err)
			}
			if n <= target || s.reason == roomShare && past[s.writer] <= s.share {
				break // done, or that writer is within its share: choose again
			}
		}
	}
	return dropped, nil
}

// storedIn reads the stored total in tx and remembers it.
func (h *HistoryDB) storedIn(ctx context.Context, tx *sql.Tx) (int64, error) {
	if h.storedKnown {
		return h.stored, nil
	}
	if err := tx.StmtContext(ctx, h.storedTotal).QueryRowContext(ctx).Scan(&h.stored); err != nil {
		return 0, err
	}
	h.storedKnown = true
	return h.stored, nil
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// pastByWriter sums, for each writer, the stored bytes of the texts it
// owns (versions.owner) that no live note's newest version holds: the
// past that the cap shares out. (A text a live note holds now is never
// dropped.)
func pastByWriter(ctx context.Context, q querier) (map[string]int64, error) {
	// The sizes come from blobs_stored: the rows of blobs hold the texts,
	// far too much to read for a sum.
	rows, err := q.QueryContext(ctx, `
		WITH newest AS (SELECT MAX(id) AS id FROM versions GROUP BY path),
		held AS (SELECT v.blob FROM versions v JOIN newest n ON n.id = v.id WHERE v.gone = 0),
		past AS (SELECT blob, MIN(owner) AS owner FROM versions
			WHERE blob NOT IN (SELECT blob FROM held) GROUP BY blob)
		SELECT p.owner, SUM(b.stored) FROM past p JOIN blobs b INDEXED BY blobs_stored ON b.id = p.blob
		GROUP BY p.owner`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	past := map[string]int64{}
	for rows.Next() {
		var w string
		var n int64
		if err := rows.Scan(&w, &n); err != nil {
			return nil, err
		}
		past[w] = n
	}
	return past, rows.Err()
}

// shareOf is each writer's share of the cap's room beyond the present
// (stored minus the past), and the writers with a past, the most first.
func shareOf(maxBytes, stored int64, past map[string]int64) (int64, []string) {
	var writers []string
	present := stored
	for w, n := range past {
		present -= n
		if n > 0 {
			writers = append(writers, w)
		}
	}
	slices.SortFunc(writers, func(a, b string) int {
		if past[a] != past[b] {
			return cmp.Compare(past[b], past[a])
		}
		return strings.Compare(a, b)
	})
	if len(writers) == 0 {
		return 0, nil
	}
	return max(maxBytes-present, 0) / int64(len(writers)), writers
}

// victim is a version to drop, or with whole a deleted note: every
// version at its path up to id.
type victim struct {
	id    int64
	path  string
	whole bool
}

// roomStep is the next batch of versions makeRoom drops.
type roomStep struct {
	reason  int
	writer  string // whose texts, for roomShare and roomOldest
	share   int64
	victims []victim
}

// The queries of nextRoom. A path's last row with gone = 1 and a kind
// other than move is a deleted note (a note moved away lives on at its
// new path, whose first version holds the same text).
//
// Each walks an index in time order and stops at the batch: a writer's
// texts through versions_owner, every deleted note through versions_time.
const (
	qDeletedOf = `SELECT id, path FROM versions v INDEXED BY versions_owner
		WHERE owner = ?1 AND gone = 1 AND kind <> 'move'
			AND id = (SELECT MAX(id) FROM versions WHERE path = v.path)
		ORDER BY time, id LIMIT ?2`
	qOlderOf = `SELECT id, path FROM versions v INDEXED BY versions_owner
		WHERE owner = ?1 AND id < (SELECT MAX(id) FROM versions WHERE path = v.path)
		ORDER BY time, id LIMIT ?2`
	qDeleted = `SELECT id, path FROM versions v INDEXED BY versions_time
		WHERE gone = 1 AND kind <> 'move'
			AND id = (SELECT MAX(id) FROM versions WHERE path = v.path)
		ORDER BY time, id LIMIT ?1`
)

// nextRoom chooses what to drop next, in makeRoom's order after the
// retention, given each writer's past and the stored total; no victims:
// only live notes' newest versions are left.
func (h *HistoryDB) nextRoom(ctx context.Context, tx *sql.Tx, past map[string]int64, stored int64) (roomStep, error) {
	share, writers := shareOf(h.maxBytes, stored, past)
	for _, w := range writers {
		if past[w] <= share {
			break
		}
		for _, q := range []struct {
			query string
			whole bool
		}{{qDeletedOf, true}, {qOlderOf, false}} {
			vs, err := victims(ctx, tx, q.whole, q.query, w, roomBatch)
			if err != nil || len(vs) > 0 {
				return roomStep{reason: roomShare, writer: w, share: share, victims: vs}, err
			}
		}
	}
	vs, err := victims(ctx, tx, true, qDeleted, roomBatch)
	if err != nil || len(vs) > 0 {
		return roomStep{reason: roomDeleted, victims: vs}, err
	}
	for _, w := range writers {
		vs, err := victims(ctx, tx, false, qOlderOf, w, roomBatch)
		if err != nil || len(vs) > 0 {
			return roomStep{reason: roomOldest, writer: w, victims: vs}, err
		}
	}
	return roomStep{}, nil
}

// victims runs one of nextRoom's queries; whole: it lists deleted notes.
func victims(ctx context.Context, tx *sql.Tx, whole bool, query string, args ...any) ([]victim, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []victim
	for rows.Next() {
		v := victim{whole: whole}
		if err := rows.Scan(&v.id, &v.path); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// evict drops one victim and the texts no version holds any more, takes
// those from their writers' past, and says how many versions went.
func (h *HistoryDB) evict(ctx context.Context, tx *sql.Tx, v victim, past map[string]int64) (int64, error) {
	h.storedKnown = false
	var rows *sql.Rows
	var err error
	if v.whole {
		rows, err = tx.QueryContext(ctx, `DELETE FROM versions WHERE path = ? AND id <= ? RETURNING blob, owner`, v.path, v.id)
	} else {
		rows, err = tx.QueryContext(ctx, `DELETE FROM versions WHERE id = ? RETURNING blob, owner`, v.id)
	}
	if err != nil {
		return 0, err
	}
	owners := map[int64]string{} // the texts the dropped versions held
	var n int64
	for rows.Next() {
		var b int64
		var owner string
		if err := rows.Scan(&b, &owner); err != nil {
			rows.Close()
			return 0, err
		}
		n++
		owners[b] = owner
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for b, owner := range owners {
		var stored int64
		err := tx.QueryRowContext(ctx, `DELETE FROM blobs WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM versions WHERE blob = ?1)
			RETURNING stored`, b).Scan(&stored)
		switch {
		case errors.Is(err, sql.ErrNoRows): // another version holds it
		case err != nil:
			return 0, err
		default:
			past[owner] -= stored
		}
	}
	return n, nil
}
