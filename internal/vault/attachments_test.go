package vault

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadAttachment(t *testing.T) {
	gif := "GIF89a\x01\x00\x01\x00\x00\x00\x00;"
	v, dir := newTestVault(t, map[string]string{
		"img/a.gif":        gif,
		"img/big.gif":      gif + string(make([]byte, 100)),
		".obsidian/x.png":  "cfg",
		".hidden/y.png":    "h",
		"Private/z.png":    "p",
		"n.md":             "note",
		"img/.cortex-tmp-": "tmp",
	}, func(o *Options) { o.Denied = []string{"Private"} })
	a, err := v.ReadAttachment(ctx, "img/a.gif", true, 50)
	if err != nil || a.MediaType != "image/gif" || string(a.Data) != gif || a.Version != ver(gif) {
		t.Fatalf("a.gif = %+v, %v", a, err)
	}
	a, err = v.ReadAttachment(ctx, "img/big.gif", true, 50)
	if err != nil || a.Data != nil || a.Size != int64(len(gif)+100) {
		t.Errorf("big.gif = %+v, %v", a, err)
	}
	for p, code := range map[string]string{
		".obsidian/x.png": CodeProtectedPath, ".hidden/y.png": CodeProtectedPath, "Private/z.png": CodeProtectedPath,
		"n.md": CodeNotANote, "img": CodeNotANote, "img/none.png": CodeNotFound, "../x.png": CodeInvalidPath,
	} {
		_, err := v.ReadAttachment(ctx, p, true, 50)
		wantCode(t, err, code)
	}
	if err := os.Symlink("a.gif", filepath.Join(dir, "img", "l.gif")); err != nil {
		t.Fatal(err)
	}
	_, err = v.ReadAttachment(ctx, "img/l.gif", true, 50)
	wantCode(t, err, CodeInvalidPath)
}
