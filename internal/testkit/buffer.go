package testkit

import (
	"bytes"
	"context"
	"strings"
	"sync"
)

// Buffer collects output written from several goroutines (a server's log,
// a child process's stderr) and reads it back at any moment.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed and replaced by each Write
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WaitFor blocks until s has been written at least n times, or ctx ends;
// it reports whether it was.
func (b *Buffer) WaitFor(ctx context.Context, s string, n int) bool {
	for {
		b.mu.Lock()
		if strings.Count(b.b.String(), s) >= n {
			b.mu.Unlock()
			return true
		}
		if b.written == nil {
			b.written = make(chan struct{})
		}
		w := b.written
		b.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return false
		}
	}
}
