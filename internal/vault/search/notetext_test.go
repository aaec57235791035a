package search

import (
	"math"
	"testing"
	"unsafe"
)

// A link takes 12 bytes and gives back its line and kind.
func TestStoredLink(t *testing.T) {
	if n := unsafe.Sizeof(storedLink{}); n != 12 {
		t.Errorf("a stored link takes %d bytes, want 12", n)
	}
	for _, line := range []int32{0, 1, 1 << 30, math.MaxInt32} {
		for _, md := range []bool{false, true} {
			l := newStoredLink(textRef{off: 3, n: 4}, line, md)
			if l.line() != line || l.md() != md || l.target != (textRef{off: 3, n: 4}) {
				t.Errorf("link at line %d, md %v: read back line %d, md %v, target %v", line, md, l.line(), l.md(), l.target)
			}
		}
	}
}
