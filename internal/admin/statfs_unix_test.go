//go:build linux || darwin || freebsd

package admin

import "testing"

func TestBlocksBytes(t *testing.T) {
	for _, tc := range []struct {
		blocks int64
		size   int64
		want   uint64
	}{
		{10, 4096, 40960},
		{0, 4096, 0},
		{-3, 4096, 0}, // FreeBSD once root's reserve is in use
		{10, 0, 0},
		{10, -1, 0},
	} {
		if got := blocksBytes(tc.blocks, tc.size); got != tc.want {
			t.Errorf("blocksBytes(%d, %d) = %d, want %d", tc.blocks, tc.size, got, tc.want)
		}
	}
	if got := blocksBytes(uint64(1)<<40, uint32(512)); got != 1<<49 {
		t.Errorf("unsigned blocksBytes = %d", got)
	}
}
