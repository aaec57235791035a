package vault

// Indexed reports whether the search index has been built (true without
// Options.Index: every search scans, and nothing is pending).
func (v *Vault) Indexed() bool {
	if v.ix == nil {
		return true
	}
	select {
	case <-v.ix.ready:
		return true
	default:
		return false
	}
}
