package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/store"
)

// fixture makes a state folder with a token and a vault with notes, an
// attachment, a hidden folder, the trash and what a backup leaves out.
func fixture(t *testing.T) (vaultDir, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	vaultDir, stateDir = filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	st, err := store.Open(context.Background(), stateDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.CreateToken(context.Background(), "laptop"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	h, err := store.OpenHistory(context.Background(), stateDir, store.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	files := map[string]string{
		"notes/a.md":                 "# A\n",
		"notes/b.md":                 "# B\n",
		"top.md":                     "top\n",
		"img/pic.png":                "\x89PNG\x00\x01",
		".trash/old.md":              "deleted\n",
		".obsidian/app.json":         "{}",
		".stversions/notes/a~1.md":   "syncthing's own copy",
		"notes/.syncthing.a.md.tmp":  "half",
		"notes/.cortex-tmp-123":      "half",
		"notes/a.sync-conflict-1.md": "conflict copy",
	}
	for p, body := range files {
		full := filepath.Join(vaultDir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(vaultDir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return vaultDir, stateDir
}

func create(t *testing.T, vaultDir, stateDir string) Result {
	t.Helper()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	res, err := Create(context.Background(), filepath.Join(t.TempDir(), "backups"), Options{Vault: vaultDir, State: stateDir, Version: "test", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCreateVerifyRestore(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	if got := filepath.Base(res.Path); got != "cortex-backup-20261201T120000Z.tar.gz" {
		t.Errorf("name %s", got)
	}
	if fi, err := os.Stat(res.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("archive mode: %v %v", fi, err)
	}
	// Notes as `status` counts them: not the trash, not the conflict copy.
	if res.Manifest.Notes != 3 {
		t.Errorf("notes %d, want 3", res.Manifest.Notes)
	}
	var paths []string
	for _, f := range res.Manifest.Files {
		paths = append(paths, f.Path)
	}
	all := strings.Join(paths, " ")
	for _, want := range []string{"state/cortex.db", "vault/notes/a.md", "vault/img/pic.png", "vault/.trash/old.md", "vault/.obsidian/app.json", "vault/notes/a.sync-conflict-1.md"} {
		if !strings.Contains(all, want) {
			t.Errorf("backup lacks %s: %s", want, all)
		}
	}
	for _, not := range []string{".stversions", ".syncthing.", ".cortex-tmp-"} {
		if strings.Contains(all, not) {
			t.Errorf("backup holds %s: %s", not, all)
		}
	}

	rep, err := Verify(context.Background(), res.Path, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.DBs[store.FileName].Counts[0] != (store.Count{What: "bearer tokens", N: 1}) {
		t.Errorf("counts %+v", rep.DBs[store.FileName])
	}

	dst := t.TempDir()
	rv, rs := filepath.Join(dst, "vault"), filepath.Join(dst, "state")
	if _, err := Restore(context.Background(), res.Path, rv, rs, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"notes/a.md", "img/pic.png", ".trash/old.md", "notes/a.sync-conflict-1.md"} {
		a, _ := os.ReadFile(filepath.Join(vaultDir, p))
		b, err := os.ReadFile(filepath.Join(rv, p))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s restored as %q (%v), was %q", p, b, err, a)
		}
	}
	if fi, err := os.Stat(filepath.Join(rv, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("empty folder not restored: %v", err)
	}
	st, err := store.Open(context.Background(), rs, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	toks, err := st.ListTokens(context.Background())
	if err != nil || len(toks) != 1 || toks[0].Name != "laptop" {
		t.Errorf("restored tokens %+v %v", toks, err)
	}
	if ents, _ := os.ReadDir(rs); len(ents) != 4 { // cortex.db, -wal, -shm, history.db: no scratch left
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("state folder holds %v", names)
	}

	// Never over live data.
	if _, err := Restore(context.Background(), res.Path, rv, filepath.Join(dst, "other"), RestoreOptions{}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("restore into a non-empty vault: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "other")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused restore left a folder: %v", err)
	}
}

// flipChanging flips one bit of the compressed archive at i, or at the
// first byte after it where a flipped bit changes what the archive holds:
// deflate has bits (in a block's code lengths, say) whose change leaves
// the text the same, and an archive that still holds the same bytes is not
// damaged (its SHA-256 beside it tells that it was touched).
func flipChanging(t *testing.T, good []byte, i int) []byte {
	t.Helper()
	want, err := gunzip(good)
	if err != nil {
		t.Fatal(err)
	}
	for ; i < len(good)-8; i++ {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		if got, err := gunzip(b); err != nil || !bytes.Equal(got, want) {
			return b
		}
	}
	t.Fatal("no flipped bit changes the archive")
	return nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func TestDamageRefused(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"flipped gzip time", flip(5), "gzip header"},
		{"flipped xfl", flip(8), "gzip header"},
		{"flipped middle", flipChanging(t, good, len(good)/2), ""},
		{"flipped crc", flip(len(good) - 6), "checksum"},
		{"flipped size", flip(len(good) - 2), ""},
		{"truncated", good[:len(good)/2], "the archive is truncated: it stops "},
		{"truncated end", good[:len(good)-4], ""},
		{"empty", nil, "too short"},
		{"not gzip", []byte("hello, this is not a backup at all"), "not a gzip"},
		{"trailing bytes", append(bytes.Clone(good), 0), ""},
		{"note missing", rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) { return body, h.Name != "vault/notes/a.md" }), "vault/notes/a.md is listed in its manifest but missing"},
		{"note changed", rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) {
			if h.Name == "vault/notes/b.md" {
				return []byte("# b\n"), true
			}
			return body, true
		}), "vault/notes/b.md does not match its SHA-256"},
		{"database missing", rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) { return body, h.Name != "state/cortex.db" }), "state/cortex.db is listed"},
		{"manifest edited", rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) {
			if h.Name == manifestName {
				return append([]byte("//"), body...), true
			}
			return body, true
		}), "is not the JSON cortex writes"},
		{"manifest missing", rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) { return body, h.Name != manifestName }), "no manifest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.tar.gz")
			if err := os.WriteFile(p, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Verify(context.Background(), p, VerifyOptions{})
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("verify: %v, want damage naming %q", err, c.want)
			}
			dst := t.TempDir()
			_, err = Restore(context.Background(), p, filepath.Join(dst, "v"), filepath.Join(dst, "s"), RestoreOptions{})
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("restore: %v", err)
			}
			if ents, _ := os.ReadDir(dst); len(ents) != 0 {
				t.Errorf("a refused restore left %v", ents)
			}
		})
	}
}

// rewrite re-packs an archive as cortex writes it, passing each entry
// through keep.
func rewrite(t *testing.T, data []byte, keep func(*tar.Header, []byte) ([]byte, bool)) []byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&out, level)
	gw.OS = gzipOS
	tw := tar.NewWriter(gw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		body, ok := keep(h, body)
		if !ok {
			continue
		}
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	tw.Close()
	gw.Close()
	return out.Bytes()
}

func TestPruneKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"20261201T000000Z", "20261202T000000Z", "20261203T000000Z"} {
		os.WriteFile(filepath.Join(dir, Prefix+n+Ext), []byte("x"), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)
	removed, err := Prune(dir, 2)
	if err != nil || len(removed) != 1 || !strings.Contains(removed[0], "20261201") {
		t.Fatalf("removed %v %v", removed, err)
	}
	list, _ := List(dir)
	if len(list) != 2 {
		t.Errorf("left %v", list)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("prune touched another file: %v", err)
	}
}

// A restore that fails after writing part of the vault removes what it
// wrote: no half-restored vault or state is left to be taken for a good one.
// Here the archive is swapped between the check and the writing of the
// vault (its last file changed), which restore finds as it writes.
func TestFailedRestoreLeavesNothing(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	good, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	bad := rewrite(t, good, func(h *tar.Header, body []byte) ([]byte, bool) {
		if h.Name == "vault/top.md" {
			return []byte("TOP\n"), true
		}
		return body, true
	})
	for _, existing := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "b.tar.gz")
		if err := os.WriteFile(p, good, 0o600); err != nil {
			t.Fatal(err)
		}
		dst := t.TempDir()
		rv, rs := filepath.Join(dst, "vault"), filepath.Join(dst, "state")
		if existing {
			os.Mkdir(rv, 0o700)
			os.Mkdir(rs, 0o700)
		}
		l := Limits{FreeSpace: func(dir string) (uint64, error) {
			if !strings.HasPrefix(dir, rs) { // checked, the vault comes next
				if err := os.WriteFile(p, bad, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return 1 << 40, nil
		}}
		_, err := Restore(context.Background(), p, rv, rs, RestoreOptions{Limits: l})
		if err == nil || !strings.Contains(err.Error(), "vault/top.md changed since it was checked") {
			t.Fatalf("restore: %v, want a failure writing the vault", err)
		}
		if left := leftBehind(dst, existing); len(left) > 0 {
			t.Errorf("folders existed before: %v; a failed restore left %v", existing, left)
		}
	}
}

// What a restore cut short by a crash leaves (its marker, a scratch copy,
// part of the vault) is opened by nothing, and named for what it is.
func TestUnfinishedRestoreRefused(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	dst := t.TempDir()
	rs := filepath.Join(dst, "state")
	if err := os.MkdirAll(filepath.Join(rs, ".cortex-verify-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := store.MarkRestoring(rs); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(context.Background(), rs, store.Options{}); !errors.Is(err, store.ErrRestoreUnfinished) {
		t.Errorf("open of a state folder left by an unfinished restore: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rs, store.FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused open made a database: %v", err)
	}
	_, err := Restore(context.Background(), res.Path, filepath.Join(dst, "vault"), rs, RestoreOptions{})
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "left by a restore that did not finish") {
		t.Errorf("restore into it: %v", err)
	}
	// A restore that completes leaves no marker.
	rs2 := filepath.Join(dst, "state2")
	if _, err := Restore(context.Background(), res.Path, filepath.Join(dst, "vault2"), rs2, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := store.UnfinishedRestore(rs2); err != nil {
		t.Errorf("after a restore: %v", err)
	}
}

// A restore that fails after the vault is written (installing the state
// fails) removes the vault too: left alone it would look whole, and a new
// restore into it would be refused.
func TestRestoreFailingLateLeavesNothing(t *testing.T) {
	vaultDir, stateDir := fixture(t)
	res := create(t, vaultDir, stateDir)
	for _, existing := range []bool{false, true} {
		dst := t.TempDir()
		rv, rs := filepath.Join(dst, "vault"), filepath.Join(dst, "state")
		if existing {
			os.Mkdir(rv, 0o700)
			os.Mkdir(rs, 0o700)
		}
		install := func(src, dir, name string) error {
			if name == store.FileName {
				return errors.New("disk full")
			}
			return store.InstallCopy(src, dir, name)
		}
		if _, err := restore(context.Background(), res.Path, rv, rs, RestoreOptions{}, install); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("restore: %v, want the failure installing the state", err)
		}
		if left := leftBehind(dst, existing); len(left) > 0 {
			t.Errorf("folders existed before: %v; a failed restore left %v", existing, left)
		}
		if _, err := Restore(context.Background(), res.Path, rv, rs, RestoreOptions{}); err != nil {
			t.Errorf("a restore again after the failed one: %v", err)
		}
	}
}

// leftBehind lists what is in dst besides the vault and state folders
// when they existed before the restore (existing), or anything at all.
func leftBehind(dst string, existing bool) []string {
	var left []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dst, p); rel != "." && (!existing || (rel != "vault" && rel != "state")) {
			left = append(left, rel)
		}
		return nil
	})
	return left
}
