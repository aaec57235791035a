package vault

import (
	"context"
	"io/fs"
	"runtime"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/vault/search"
)

// rebuild builds the index from the notes and puts it in place of the
// current one, which keeps serving meanwhile (or the scan, when there is
// none).
func (ix *indexer) rebuild() *Error {
	start := time.Now()
	bulkDone := sync.OnceFunc(ix.v.bulkRead())
	defer bulkDone()
	ix.mu.Lock()
	ix.building = true
	ix.mu.Unlock()
	x, e := ix.build(context.Background())
	ix.mu.Lock()
	ix.building = false
	if e != nil {
		ix.mu.Unlock()
		return e
	}
	ix.x = x
	// Read the figures for the log line while the lock is held: once it is
	// released, cortex's own writes update x.
	notes, terms := x.Live(), x.Terms()
	close(ix.changed)
	ix.changed = make(chan struct{})
	ix.mu.Unlock()
	ix.v.forgetPrivate("") // the index has read every note since
	// Before the log line, which the benchmark harness measures from.
	bulkDone()
	ix.v.log.Info("search index ready", "notes", notes, "terms", terms,
		"duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// build reads every note into a fresh index: one goroutine walks and
// reads, the analysis runs on the available cores (at most two), and one
// goroutine fills the index.
func (ix *indexer) build(ctx context.Context) (*search.Index, *Error) {
	type job struct {
		path string
		data []byte
		fi   fs.FileInfo
	}
	// Small buffers: a queued job holds a whole note in memory.
	jobs := make(chan job, 8)
	results := make(chan *search.Analysed, 8)
	workers := min(2, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				// What each note says of being private is learnt on the
				// same read, so that listing and searching for an app
				// need not read a note for it.
				a := search.Analyse(j.path, string(j.data), j.fi.ModTime().UnixNano(), j.fi.Size())
				a.SetPrivate(privateText(string(j.data)))
				results <- a
			}
		}()
	}
	x := search.NewIndex()
	filled := make(chan struct{})
	go func() {
		for a := range results {
			x.Put(a, false)
		}
		close(filled)
	}()
	ix.watch("")
	e := ix.v.walk(ctx, "", true, func(w walkEntry) *Error {
		select {
		case <-ix.stop:
			return newErr(CodeInternal, reasonNone, context.Canceled)
		default:
		}
		if w.info.IsDir() {
			ix.watch(w.path)
			return nil
		}
		if w.info.Size() > ix.v.maxNote {
			return nil
		}
		data, st, e := ix.v.readIn(w.dir, w.name, w.info)
		if e != nil {
			return nil // gone or replaced meanwhile; a notification follows
		}
		jobs <- job{w.path, data, st}
		return nil
	})
	close(jobs)
	wg.Wait()
	close(results)
	<-filled
	if e != nil {
		return nil, e
	}
	x.SortTerms()
	x.Shrink()
	return x, nil
}

// bulkRead announces a pass that reads every note (Options.BulkRead) and
// returns what ends it.
func (v *Vault) bulkRead() (done func()) {
	if v.bulk == nil {
		return func() {}
	}
	if done = v.bulk(); done == nil {
		return func() {}
	}
	return done
}
