package search

import (
	"container/heap"
	"slices"
)

// better orders candidates: higher score, then newer, then by path.
func (x *Index) better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	da, db := &x.docs[a.doc], &x.docs[b.doc]
	if da.mod != db.mod {
		return da.mod > db.mod
	}
	return da.path < db.path
}

// Top returns the best k candidates in order, without sorting them all.
func (x *Index) Top(c []Scored, k int) []Scored {
	if k >= len(c) {
		slices.SortFunc(c, x.cmp)
		return c
	}
	// The first k fill the heap's array, made at its size, and are
	// ordered once: heap.Push would box each candidate in an interface.
	h := &worstHeap{x: x, s: make([]Scored, 0, k)}
	for _, s := range c {
		if len(h.s) < k {
			h.s = append(h.s, s)
			if len(h.s) == k {
				heap.Init(h)
			}
		} else if x.better(s, h.s[0]) {
			h.s[0] = s
			heap.Fix(h, 0)
		}
	}
	out := h.s
	slices.SortFunc(out, x.cmp)
	return out
}

func (x *Index) cmp(a, b Scored) int {
	switch {
	case x.better(a, b):
		return -1
	case x.better(b, a):
		return 1
	}
	return 0
}

// worstHeap keeps the worst of the best k at its root.
type worstHeap struct {
	x *Index
	s []Scored
}

func (h *worstHeap) Len() int           { return len(h.s) }
func (h *worstHeap) Less(i, j int) bool { return h.x.better(h.s[j], h.s[i]) }
func (h *worstHeap) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *worstHeap) Push(v any)         { h.s = append(h.s, v.(Scored)) }
func (h *worstHeap) Pop() any {
	v := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return v
}
