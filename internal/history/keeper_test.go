package history

import (
	"testing"

	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
)

// The vault names its kinds of change and Keeper passes them to the store
// as they are; neither package may import the other, so each keeps the
// list, and this test keeps the two the same.
func TestVaultKindsAreTheStoreKinds(t *testing.T) {
	for _, k := range [][2]string{
		{vault.KindCreate, store.KindCreate},
		{vault.KindEdit, store.KindEdit},
		{vault.KindAppend, store.KindAppend},
		{vault.KindMove, store.KindMove},
		{vault.KindDelete, store.KindDelete},
		{vault.KindRestore, store.KindRestore},
		{vault.KindExternal, store.KindExternal},
	} {
		if k[0] != k[1] {
			t.Errorf("vault kind %q is stored as %q", k[0], k[1])
		}
	}
}
