package oauth

import (
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
	"github.com/cortex-mcp/cortex/internal/store"
)

// Rate is a token bucket: Burst at once, refilling PerMinute.
type Rate = httpx.Rate

// Limits are the lifetimes and bounds of the authorization server. Zero
// fields take the value of DefaultLimits.
type Limits struct {
	CodeTTL      time.Duration // authorization codes
	AccessTTL    time.Duration // access tokens
	RefreshTTL   time.Duration // a refresh token, from its issue; each rotation starts anew
	RefreshGrace time.Duration // a spent refresh token returns the same pair within this (≤ 60 s)

	PendingTTL       time.Duration // authorization requests waiting for the owner
	PendingPerSource int
	PendingTotal     int

	MaxUnusedClients   int           // registered clients never approved
	UnusedClientMinAge time.Duration // younger ones are never evicted

	// Budgets: per source first, then global. The signed-in owner's
	// /authorize spends none.
	AuthorizePerSource, AuthorizeGlobal Rate
	RegisterPerSource, RegisterGlobal   Rate
	FetchPerSource, FetchGlobal         Rate // metadata document and key set fetches
	TokenPerSource                      Rate // /token and /revoke
	MaxSources                          int  // sources each budget remembers (LRU)

	FetchTimeout  time.Duration
	FetchMaxBytes int64
	DocTTL        time.Duration // a fetched metadata document or key set is fresh this long
	DocStale      time.Duration // an approved client's stored document serves this long when its host is down
	DocCacheSize  int           // documents of not yet approved clients kept in memory
	MaxAssertions int           // remembered client assertion ids (jti)
	PruneEvery    time.Duration
}

// DefaultLimits are the numbers cortex runs with.
var DefaultLimits = Limits{
	CodeTTL:      60 * time.Second,
	AccessTTL:    time.Hour,
	RefreshTTL:   30 * 24 * time.Hour,
	RefreshGrace: 30 * time.Second,

	PendingTTL:       10 * time.Minute,
	PendingPerSource: 10,
	PendingTotal:     200,

	MaxUnusedClients:   50,
	UnusedClientMinAge: 10 * time.Minute,

	AuthorizePerSource: Rate{Burst: 10, PerMinute: 10},
	AuthorizeGlobal:    Rate{Burst: 120, PerMinute: 120},
	RegisterPerSource:  Rate{Burst: 10, PerMinute: 5},
	RegisterGlobal:     Rate{Burst: 30, PerMinute: 30},
	FetchPerSource:     Rate{Burst: 5, PerMinute: 5},
	FetchGlobal:        Rate{Burst: 20, PerMinute: 20},
	TokenPerSource:     Rate{Burst: 60, PerMinute: 60},
	MaxSources:         4096,

	FetchTimeout:  5 * time.Second,
	FetchMaxBytes: 64 << 10,
	DocTTL:        time.Hour,
	DocStale:      7 * 24 * time.Hour,
	DocCacheSize:  64,
	MaxAssertions: 4096,
	PruneEvery:    5 * time.Minute,
}

func (l Limits) withDefaults() Limits {
	httpx.FillDefaults(&l, DefaultLimits)
	l.RefreshGrace = min(l.RefreshGrace, time.Minute)
	return l
}

func (l Limits) pending() store.PendingLimits {
	return store.PendingLimits{PerSource: l.PendingPerSource, Total: l.PendingTotal}
}
