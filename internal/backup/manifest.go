package backup

import (
	"path"
	"strings"
)

// checkManifest compares what was read with what the manifest lists.
func checkManifest(m *Manifest, got map[string]seen) error {
	if m.Format != format {
		return damaged("its manifest has format %d; this cortex reads format %d", m.Format, format)
	}
	listed := map[string]bool{manifestName: true}
	notes := 0
	for _, f := range m.Files {
		listed[f.Path] = true
		g, ok := got[f.Path]
		switch {
		case !ok:
			return damaged("%s is listed in its manifest but missing from the archive", f.Path)
		case g.size != f.Size:
			return damaged("%s has %d bytes, and the manifest says %d", f.Path, g.size, f.Size)
		case g.sum != f.SHA256:
			return damaged("%s does not match its SHA-256 in the manifest: its content was changed", f.Path)
		}
		if f.Note {
			notes++
		}
	}
	for _, d := range m.Dirs {
		p := vaultPrefix + d + "/"
		listed[p] = true
		if g, ok := got[p]; !ok || g.size != -1 {
			return damaged("the folder %s is listed in its manifest but missing from the archive", p)
		}
	}
	for name := range got {
		if !listed[name] {
			return damaged("it holds %s, which its manifest does not list", name)
		}
	}
	if err := checkClash(m); err != nil {
		return err
	}
	if notes != m.Notes {
		return damaged("its manifest counts %d notes but lists %d", m.Notes, notes)
	}
	return nil
}

// checkClash refuses a vault file whose path is also a folder (listed, or
// the parent of another entry): no restore could write both.
func checkClash(m *Manifest) error {
	dirs := map[string]bool{}
	for _, d := range m.Dirs {
		dirs[vaultPrefix+d] = true
	}
	for _, f := range m.Files {
		for d := path.Dir(f.Path); strings.HasPrefix(d, vaultPrefix); d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, f := range m.Files {
		if dirs[f.Path] {
			return damaged("it holds %s both as a file and as a folder, which no restore can write", f.Path)
		}
	}
	return nil
}

// validName accepts the names cortex writes: the manifest, state/NAME and
// vault/PATH, with no "..", no leading "/" and nothing empty.
func validName(name string) bool {
	n := strings.TrimSuffix(name, "/")
	if n == manifestName {
		return name == n
	}
	if !strings.HasPrefix(n, statePrefix) && !strings.HasPrefix(n, vaultPrefix) {
		return false
	}
	return n != "" && !strings.Contains(n, "\\") && pathValid(n)
}

func pathValid(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
