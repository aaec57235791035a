package diff

// This file is the comparison itself: Myers' O(ND) algorithm in linear
// space ("An O(ND) Difference Algorithm and Its Variations", 1986, section
// 4b), as GNU diff runs it, on sequences of small integers (interned
// lines or words). It marks which items of each side are not in a longest
// common subsequence; the callers turn the marks into an edit script.

// costLimit is the least search depth (edit steps tried from each end of
// one piece) beyond which a piece is split at the best point found so far
// instead of the exact middle. Pieces whose differences are fewer than
// this (every realistic edit of a note) get a minimal diff; only inputs
// built to be pathological (hundreds of thousands of interleaved equal
// lines) get a correct but not minimal one, in bounded time. The depth
// grows with the square root of the input, as in GNU diff, so larger
// inputs keep their minimal diffs for larger edits.
const costLimit = 256

// workBudget bounds the probes and equal-item steps of one comparison
// before every further piece is split after lateCost steps at most; past
// it, the work left grows with the input's length only. Realistic edits
// of the largest notes stay far below it.
const (
	workBudget = 1 << 25
	lateCost   = 16
)

// compare marks in xch and ych (as long as x and y) the items of x and y
// that are not in the common subsequence it finds; items are numbered
// from 0 to distinct-1.
func compare(x, y []int32, distinct int) (xch, ych []bool) {
	xch, ych = make([]bool, len(x)), make([]bool, len(y))
	// Items that the other side lacks are in no common subsequence: mark
	// them and leave them out, which shrinks a rewrite to what it shares.
	inX, inY := make([]bool, distinct), make([]bool, distinct)
	for _, v := range x {
		inX[v] = true
	}
	for _, v := range y {
		inY[v] = true
	}
	xs, xi := keep(x, inY, xch)
	ys, yi := keep(y, inX, ych)
	if len(xs) > 0 && len(ys) > 0 {
		c := newComparer(xs, ys)
		c.run()
		for i, ch := range c.xch {
			xch[xi[i]] = ch
		}
		for j, ch := range c.ych {
			ych[yi[j]] = ch
		}
	}
	return xch, ych
}

// keep returns the items of s that other has, with their indexes in s,
// and marks the rest in ch.
func keep(s []int32, other []bool, ch []bool) ([]int32, []int) {
	out, idx := make([]int32, 0, len(s)), make([]int, 0, len(s))
	for i, v := range s {
		if other[v] {
			out = append(out, v)
			idx = append(idx, i)
		} else {
			ch[i] = true
		}
	}
	return out, idx
}

type comparer struct {
	x, y     []int32
	xch, ych []bool
	// fd and bd are the furthest x reached on each diagonal k = x-y by
	// the forward and the backward search, at index k+off.
	fd, bd    []int
	off       int
	expensive int
	work      int // probes and steps so far, against workBudget
}

func newComparer(x, y []int32) *comparer {
	n := len(x) + len(y) + 3
	c := &comparer{x: x, y: y, xch: make([]bool, len(x)), ych: make([]bool, len(y)),
		fd: make([]int, n), bd: make([]int, n), off: len(y) + 1, expensive: 1}
	for d := n; d != 0; d >>= 2 {
		c.expensive <<= 1
	}
	c.expensive = max(costLimit, c.expensive)
	return c
}

type piece struct{ xlo, xhi, ylo, yhi int }

// run compares the whole of x and y, one piece at a time from a stack
// (the pieces are independent, so no recursion and no deep stack).
func (c *comparer) run() {
	stack := []piece{{0, len(c.x), 0, len(c.y)}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for p.xlo < p.xhi && p.ylo < p.yhi && c.x[p.xlo] == c.y[p.ylo] {
			p.xlo++
			p.ylo++
		}
		for p.xhi > p.xlo && p.yhi > p.ylo && c.x[p.xhi-1] == c.y[p.yhi-1] {
			p.xhi--
			p.yhi--
		}
		if p.xlo == p.xhi || p.ylo == p.yhi {
			c.changeAll(p)
		} else {
			xm, ym := c.middle(p)
			if (xm == p.xlo && ym == p.ylo) || (xm == p.xhi && ym == p.yhi) {
				// Cannot happen (a piece has a difference at each end, so
				// either search moves inward); kept so that a mistake
				// costs a coarser diff, not a loop without end.
				c.changeAll(p)
				continue
			}
			stack = append(stack, piece{p.xlo, xm, p.ylo, ym}, piece{xm, p.xhi, ym, p.yhi})
		}
	}
}

// changeAll marks every item of piece p changed.
func (c *comparer) changeAll(p piece) {
	for i := p.xlo; i < p.xhi; i++ {
		c.xch[i] = true
	}
	for j := p.ylo; j < p.yhi; j++ {
		c.ych[j] = true
	}
}

// middle finds where a shortest edit script of piece p crosses its middle
// (a point both halves of which are smaller than p), searching forward
// from the start and backward from the end until the two searches meet;
// past the cost limit it returns the furthest point either has reached.
func (c *comparer) middle(p piece) (xm, ym int) {
	x, y, fd, bd, off := c.x, c.y, c.fd, c.bd, c.off
	dmin, dmax := p.xlo-p.yhi, p.xhi-p.ylo
	fmid, bmid := p.xlo-p.ylo, p.xhi-p.yhi
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[fmid+off], bd[bmid+off] = p.xlo, p.xhi
	for cost := 1; ; cost++ {
		// One more step forward on every diagonal in reach.
		if fmin > dmin {
			fmin--
			fd[fmin-1+off] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[fmax+1+off] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			lo, hi := fd[d-1+off], fd[d+1+off]
			x0 := hi
			if lo >= hi {
				x0 = lo + 1
			}
			xx, yy := x0, x0-d
			for xx < p.xhi && yy < p.yhi && x[xx] == y[yy] {
				xx++
				yy++
			}
			c.work += 1 + xx - x0
			fd[d+off] = xx
			if odd && bmin <= d && d <= bmax && bd[d+off] <= xx {
				return xx, yy
			}
		}
		// And one more step backward.
		if bmin > dmin {
			bmin--
			bd[bmin-1+off] = int(^uint(0) >> 1)
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[bmax+1+off] = int(^uint(0) >> 1)
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			lo, hi := bd[d-1+off], bd[d+1+off]
			x0 := hi - 1
			if lo < hi {
				x0 = lo
			}
			xx, yy := x0, x0-d
			for xx > p.xlo && yy > p.ylo && x[xx-1] == y[yy-1] {
				xx--
				yy--
			}
			c.work += 1 + x0 - xx
			bd[d+off] = xx
			if !odd && fmin <= d && d <= fmax && xx <= fd[d+off] {
				return xx, yy
			}
		}
		if c.work > workBudget {
			c.expensive = lateCost
		}
		if cost >= c.expensive {
			return c.furthest(p, fmin, fmax, bmin, bmax)
		}
	}
}

// furthest is the point, reached by the forward or the backward search,
// that leaves the least of p to the other side: the split used when an
// exact middle would cost too much.
func (c *comparer) furthest(p piece, fmin, fmax, bmin, bmax int) (xm, ym int) {
	fd, bd, off := c.fd, c.bd, c.off
	fbest, fx := -1, 0
	for d := fmax; d >= fmin; d -= 2 {
		x := min(fd[d+off], p.xhi)
		y := x - d
		if y > p.yhi {
			x, y = p.yhi+d, p.yhi
		}
		if x+y > fbest {
			fbest, fx = x+y, x
		}
	}
	bbest, bx := int(^uint(0)>>1), 0
	for d := bmax; d >= bmin; d -= 2 {
		x := max(p.xlo, bd[d+off])
		y := x - d
		if y < p.ylo {
			x, y = p.ylo+d, p.ylo
		}
		if x+y < bbest {
			bbest, bx = x+y, x
		}
	}
	if (p.xhi+p.yhi)-bbest < fbest-(p.xlo+p.ylo) {
		return fx, fbest - fx
	}
	return bx, bbest - bx
}
