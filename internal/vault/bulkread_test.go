package vault

import (
	"sync"
	"testing"
	"time"
)

// The two passes that read every note once, the index build and the
// history's first copy of the notes as found, are announced through
// Options.BulkRead, each ended before the next begins, so that the process
// can tend its memory around them.
func TestBulkReadWrapsTheReadEverythingPasses(t *testing.T) {
	var mu sync.Mutex
	var events []string
	ended := make(chan struct{}, 4)
	newTestVault(t, map[string]string{"a.md": "one\n", "b/c.md": "two\n"}, func(o *Options) {
		o.Index = true
		o.History = &fakeHistory{}
		o.BulkRead = func() func() {
			mu.Lock()
			events = append(events, "begin")
			mu.Unlock()
			return func() {
				mu.Lock()
				events = append(events, "end")
				mu.Unlock()
				ended <- struct{}{}
			}
		}
	})
	for range 2 {
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			t.Fatal("the index build and the first history pass did not both end")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"begin", "end", "begin", "end"}; len(events) != len(want) || events[0] != "begin" || events[1] != "end" || events[2] != "begin" || events[3] != "end" {
		t.Errorf("BulkRead events %v, want %v", events, want)
	}
}
