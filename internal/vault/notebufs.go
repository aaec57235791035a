package vault

import (
	"io/fs"
	"math/bits"
	"strings"
	"sync"
	"unsafe"
)

// noteBufs keeps the buffers a search reads notes into to match them: a
// note read to confirm a candidate, or by a search without the index, is
// matched and snippeted, then dropped, and reading each into memory of its
// own made a quarter of what a search allocated. Whatever a hit keeps of
// such a note (its title, snippet, lines) is detached from the buffer
// before the buffer is given back.
type noteBufs struct{ pool sync.Pool } // of *[]byte

// Buffers are kept from minNoteBuf to maxNoteBuf bytes, by powers of two
// so that the few kept soon fit most notes; a longer note is read into
// memory of its own, which the pool does not pin. The bound is above
// typical long notes (the bench's vault has some of 190 kB, which a common
// word makes candidates often) and far below the notes' size limit.
const (
	minNoteBuf = 4 << 10
	maxNoteBuf = 256 << 10
)

// get returns an empty buffer with room for a note of size bytes and the
// byte more that readAllSized reads to see growth, or nil for a note too
// long to read into a kept buffer.
func (p *noteBufs) get(size int64) []byte {
	n := size + 1
	if n > maxNoteBuf {
		return nil
	}
	if b, ok := p.pool.Get().(*[]byte); ok && int64(cap(*b)) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, max(minNoteBuf, 1<<bits.Len64(uint64(n-1))))
}

// put keeps b for a later get; nothing may read b, nor any string made
// from it with noteString, afterwards.
func (p *noteBufs) put(b []byte) {
	if cap(b) < minNoteBuf || cap(b) > maxNoteBuf {
		return
	}
	b = b[:0]
	p.pool.Put(&b)
}

// readPooled reads the note p, of about size bytes, into a buffer of
// v.bufs, for the caller to give back with v.bufs.put once it has
// detached what it keeps; after an error there is nothing to give back.
func (v *Vault) readPooled(p string, size int64) ([]byte, fs.FileInfo, *Error) {
	buf := v.bufs.get(size)
	data, fi, e := v.readNoteFileInto(p, buf)
	if e != nil {
		v.bufs.put(buf)
	}
	return data, fi, e
}

// detach copies every text of h that lies in buf (a note read into a
// pooled buffer), so that h outlives the buffer's next use. Texts made
// anew (a snippet with its white space collapsed, a title from the index)
// are kept as they are.
func (h *Hit) detach(buf []byte) {
	h.Path = detached(h.Path, buf)
	h.Title = detached(h.Title, buf)
	h.Snippet = detached(h.Snippet, buf)
	for i := range h.Lines {
		h.Lines[i].Text = detached(h.Lines[i].Text, buf)
	}
}

// detached returns s, or a copy of it when its bytes lie in buf's array.
func detached(s string, buf []byte) string {
	if s == "" || cap(buf) == 0 {
		return s
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf))) // #nosec G103 -- compared, never dereferenced
	at := uintptr(unsafe.Pointer(unsafe.StringData(s)))  // #nosec G103 -- compared, never dereferenced
	if at >= lo && at < lo+uintptr(cap(buf)) {
		return strings.Clone(s)
	}
	return s
}
