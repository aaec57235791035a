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

// withDefaults gives each field left zero or negative (a Rate without
// burst or refill) its default (TestLimitsDefaults checks that none is
// forgotten), and bounds RefreshGrace.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	l.CodeTTL = httpx.Or(l.CodeTTL, d.CodeTTL)
	l.AccessTTL = httpx.Or(l.AccessTTL, d.AccessTTL)
	l.RefreshTTL = httpx.Or(l.RefreshTTL, d.RefreshTTL)
	l.RefreshGrace = httpx.Or(l.RefreshGrace, d.RefreshGrace)
	l.PendingTTL = httpx.Or(l.PendingTTL, d.PendingTTL)
	l.PendingPerSource = httpx.Or(l.PendingPerSource, d.PendingPerSource)
	l.PendingTotal = httpx.Or(l.PendingTotal, d.PendingTotal)
	l.MaxUnusedClients = httpx.Or(l.MaxUnusedClients, d.MaxUnusedClients)
	l.UnusedClientMinAge = httpx.Or(l.UnusedClientMinAge, d.UnusedClientMinAge)
	l.AuthorizePerSource = l.AuthorizePerSource.Or(d.AuthorizePerSource)
	l.AuthorizeGlobal = l.AuthorizeGlobal.Or(d.AuthorizeGlobal)
	l.RegisterPerSource = l.RegisterPerSource.Or(d.RegisterPerSource)
	l.RegisterGlobal = l.RegisterGlobal.Or(d.RegisterGlobal)
	l.FetchPerSource = l.FetchPerSource.Or(d.FetchPerSource)
	l.FetchGlobal = l.FetchGlobal.Or(d.FetchGlobal)
	l.TokenPerSource = l.TokenPerSource.Or(d.TokenPerSource)
	l.MaxSources = httpx.Or(l.MaxSources, d.MaxSources)
	l.FetchTimeout = httpx.Or(l.FetchTimeout, d.FetchTimeout)
	l.FetchMaxBytes = httpx.Or(l.FetchMaxBytes, d.FetchMaxBytes)
	l.DocTTL = httpx.Or(l.DocTTL, d.DocTTL)
	l.DocStale = httpx.Or(l.DocStale, d.DocStale)
	l.DocCacheSize = httpx.Or(l.DocCacheSize, d.DocCacheSize)
	l.MaxAssertions = httpx.Or(l.MaxAssertions, d.MaxAssertions)
	l.PruneEvery = httpx.Or(l.PruneEvery, d.PruneEvery)
	l.RefreshGrace = min(l.RefreshGrace, time.Minute)
	return l
}

func (l Limits) pending() store.PendingLimits {
	return store.PendingLimits{PerSource: l.PendingPerSource, Total: l.PendingTotal}
}
