package vault

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDailyHostileSettings: whatever the Periodic Notes settings say, the
// daily note is a creatable note inside the vault (or invalid_path), and
// its template is a note inside the vault outside the protected folders,
// never a file through a link.
func TestDailyHostileSettings(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i, set := range []string{
		`{"folder":"../out","format":"YYYY"}`,
		`{"folder":"/etc","format":"[passwd]"}`,
		`{"folder":".obsidian","format":"YYYY"}`,
		`{"folder":".trash","format":"YYYY"}`,
		`{"folder":"a/../../x","format":"YYYY"}`,
		`{"folder":"","format":"[../../]YYYY"}`,
		`{"folder":"Daily","format":"[/../.obsidian/]YYYY"}`,
		`{"folder":"Daily","format":"[..]"}`,
		`{"folder":"Daily","format":"[\\..\\x]"}`,
		`{"folder":"Daily","format":"YYYY\u0000"}`,
		`{"folder":"Daily","format":"` + strings.Repeat("YYYY", 400) + `"}`,
		`{"template":"../secret"}`,
		`{"template":"/` + filepath.ToSlash(outside) + `/secret"}`,
		`{"template":".obsidian/secret"}`,
		`{"template":".OBSIDIAN/secret"}`,
		`{"template":"Private/secret"}`,
		`{"template":"Link/secret"}`,
		`{"template":"linked"}`,
		`{"template":"T/../.obsidian/secret"}`,
		`{"folder":7,"format":[],"template":{}}`,
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			files := map[string]string{
				".obsidian/community-plugins.json":           `["periodic-notes"]`,
				".obsidian/plugins/periodic-notes/data.json": `{"daily":` + strings.TrimSuffix(set, "}") + `,"enabled":true}}`,
				".obsidian/secret.md":                        "SECRET",
				"Private/secret.md":                          "SECRET",
			}
			if strings.HasPrefix(set, `{"folder":7`) {
				files[".obsidian/plugins/periodic-notes/data.json"] = `{"daily":` + set + `}`
			}
			v, dir := newTestVault(t, files, func(o *Options) { o.Denied = []string{"Private/"} })
			if err := os.Symlink(outside, filepath.Join(dir, "Link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "linked.md")); err != nil {
				t.Fatal(err)
			}
			d, err := v.Daily(ctx, day)
			if err != nil {
				wantCode(t, err, CodeInvalidPath)
				return
			}
			if e := v.checkCreatable(d.Path); e != nil {
				t.Errorf("daily path %q: %v", d.Path, e)
			}
			if strings.Contains(d.Template, "SECRET") {
				t.Errorf("template read from outside: %q", d.Template)
			}
		})
	}
}
