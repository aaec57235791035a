package owner

import (
	"container/list"
	"net/netip"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

type ceremonyKind int

const (
	kindLogin ceremonyKind = iota + 1
	kindEnrol
)

// ceremony is the server's half of one open WebAuthn exchange. It is used
// once: taking it removes it.
type ceremony struct {
	id      string
	kind    ceremonyKind
	src     netip.Prefix
	bind    string // the CSRF token of the browser that began it
	data    webauthn.SessionData
	expires time.Time
	// Enrolment only: the link it will consume, and the passkey's name.
	linkHash string
	name     string

	el *list.Element
}

// ceremonies holds open ceremonies in memory, bounded in total and per
// source; a new one evicts the oldest (of its source first). All share one
// lifetime, so the oldest is also the first to expire.
type ceremonies struct {
	max, perSource int

	mu    sync.Mutex
	order *list.List // of *ceremony, oldest at the front
	byID  map[string]*ceremony
	count map[netip.Prefix]int
}

func newCeremonies(max, perSource int) *ceremonies {
	return &ceremonies{max: max, perSource: perSource, order: list.New(),
		byID: make(map[string]*ceremony), count: make(map[netip.Prefix]int)}
}

func (cs *ceremonies) remove(c *ceremony) {
	cs.order.Remove(c.el)
	delete(cs.byID, c.id)
	if cs.count[c.src]--; cs.count[c.src] <= 0 {
		delete(cs.count, c.src)
	}
}

// add stores c, first dropping expired ceremonies and then whatever the
// caps require.
func (cs *ceremonies) add(c *ceremony, now time.Time) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for el := cs.order.Front(); el != nil; {
		next := el.Next()
		if old := el.Value.(*ceremony); !now.Before(old.expires) {
			cs.remove(old)
		}
		el = next
	}
	if cs.count[c.src] >= cs.perSource {
		for el := cs.order.Front(); el != nil; el = el.Next() {
			if old := el.Value.(*ceremony); old.src == c.src {
				cs.remove(old)
				break
			}
		}
	}
	for cs.order.Len() >= cs.max {
		cs.remove(cs.order.Front().Value.(*ceremony))
	}
	c.el = cs.order.PushBack(c)
	cs.byID[c.id] = c
	cs.count[c.src]++
}

// take removes and returns the ceremony id if it is of kind, was begun by
// the same browser and has not expired.
func (cs *ceremonies) take(id string, kind ceremonyKind, bind string, now time.Time) (*ceremony, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.byID[id]
	if !ok || c.kind != kind || c.bind != bind {
		return nil, false
	}
	cs.remove(c)
	return c, now.Before(c.expires)
}

func (cs *ceremonies) len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.order.Len()
}
