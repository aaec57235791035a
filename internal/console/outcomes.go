package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cortex-mcp/cortex/internal/history"
)

// Post/redirect/get: a console form's POST does the work, keeps what it
// did here (an outcome) and answers 303 to /console/result/{id}, which
// only shows it. A reload shows the same outcome and changes nothing; a
// form sent twice (a double click, back and send again) finds the
// outcome of its first sending and is sent there. Outcomes live in
// memory: they are for the next few minutes of one browser, and a restart
// forgets them, which costs the owner a "no longer kept" page, never a
// repeated action.

const (
	// outcomeLife is how long a result page and the memory of a sent
	// form are kept.
	outcomeLife = 15 * time.Minute
	// maxOutcomes bounds the results (and, as many again, the sent forms
	// and the forms waiting for a sign-in) kept at once; the oldest go
	// first.
	maxOutcomes = 256
)

// outcome is what a console action did, as its result page shows it.
type outcome struct {
	Nav, Title string
	// Message says what was done, in one or two sentences.
	Message        string
	Link, LinkText string // where to go next
	What           string // "undo" or "restore" when Plan is set
	Plan           *history.Plan
	Diffs          []diffView             // what each change of Plan does
	Later          map[string]*laterWrite // who changed each conflict later, and when
	Force          url.Values             // the form that repeats the action over the conflicts
	Failed         bool                   // nothing was done (a conflict): the form may be sent again
	TokenName      string
	secret         string // a new token's secret, shown on the first view only
	secretShown    bool
	session        string
	expires        time.Time
}

// outcomes keeps the console's outcomes, the forms already sent and the
// forms waiting for a fresh sign-in. Safe for concurrent use.
type outcomes struct {
	key []byte // signs form ids, so a forged one is told apart

	mu      sync.Mutex
	results map[string]*outcome
	sent    map[string]*sending
	pending map[string]*pendingForm
}

// sending is a form being done or done: those sending it again wait for
// done, then go to result.
type sending struct {
	done    chan struct{}
	result  string // "" while running, or when it failed
	expires time.Time
}

// pendingForm is a form kept while the owner signs in again: the action's
// path and exactly the values the owner chose.
type pendingForm struct {
	path    string
	form    url.Values
	key     string // the sent form's key
	result  string // set once done
	expires time.Time
}

func newOutcomes() (*outcomes, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &outcomes{key: key, results: map[string]*outcome{}, sent: map[string]*sending{}, pending: map[string]*pendingForm{}}, nil
}

// randomID is 128 random bits, base64url.
func randomID() string { return rand.Text() }

// formID is a new id for the forms of one page: random and signed.
func (o *outcomes) formID() string {
	n := randomID()
	return n + "." + o.sign(n)
}

func (o *outcomes) sign(n string) string {
	m := hmac.New(sha256.New, o.key)
	m.Write([]byte("form:" + n))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// validForm reports whether id is a form id this console made.
func (o *outcomes) validForm(id string) bool {
	n, sig, ok := strings.Cut(id, ".")
	return ok && len(id) < 128 && hmac.Equal([]byte(sig), []byte(o.sign(n)))
}

// formKey names one sending of a form: the form id of its page, the
// action and the values chosen (the CSRF token aside, which a new
// sign-in changes). Two forms of one page (undo this change, undo that
// one) are two keys; the same form sent twice is one.
func formKey(path string, form url.Values) string {
	names := make([]string, 0, len(form))
	for k := range form {
		if k != "csrf" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	h := sha256.New()
	h.Write([]byte(path))
	for _, k := range names {
		vs := append([]string(nil), form[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			h.Write([]byte{0})
			h.Write([]byte(k))
			h.Write([]byte{1})
			h.Write([]byte(v))
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// claim starts the sending key at now. When it was already sent it
// returns the result id of that first sending (waiting for it if it is
// still running); otherwise mine is true and the caller must call finish.
func (o *outcomes) claim(ctx context.Context, key string, now time.Time) (result string, mine bool, err error) {
	for {
		o.mu.Lock()
		o.pruneLocked(now)
		s, ok := o.sent[key]
		if !ok {
			o.sent[key] = &sending{done: make(chan struct{}), expires: now.Add(outcomeLife)}
			o.mu.Unlock()
			return "", true, nil
		}
		o.mu.Unlock()
		select {
		case <-s.done:
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
		o.mu.Lock()
		result = s.result
		o.mu.Unlock()
		if result != "" {
			return result, false, nil
		}
		// The first sending failed and let go of key: try again.
	}
}

// finish ends the sending key: result is its outcome's id, or "" when
// nothing was done, which lets the form be sent again.
func (o *outcomes) finish(key, result string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.sent[key]
	if !ok {
		return
	}
	s.result = result
	if result == "" {
		delete(o.sent, key)
	}
	close(s.done)
}

// put keeps out for the session and returns its id.
func (o *outcomes) put(out *outcome, session string, now time.Time) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pruneLocked(now)
	evictOldest(o.results, func(r *outcome) time.Time { return r.expires })
	out.session, out.expires = session, now.Add(outcomeLife)
	if out.Plan != nil {
		// The page shows Diffs, which are bounded; the plan's own diffs
		// are whole notes, too big to keep for 15 minutes.
		p := &history.Plan{Changes: append([]history.Change(nil), out.Plan.Changes...)}
		for i := range p.Changes {
			p.Changes[i].Diff = nil
		}
		out.Plan = p
	}
	id := randomID()
	o.results[id] = out
	return id
}

// view returns a copy of the outcome id for session at now; the secret
// of a new token is in the copy on the first view only.
func (o *outcomes) view(id, session string, now time.Time) (outcome, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out, ok := o.results[id]
	if !ok || out.session != session || !now.Before(out.expires) {
		return outcome{}, false
	}
	cp := *out
	if out.secretShown {
		cp.secret = ""
	}
	out.secret, out.secretShown = "", true
	return cp, true
}

// keep holds a form until the owner has signed in again.
func (o *outcomes) keep(p *pendingForm, now time.Time) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pruneLocked(now)
	evictOldest(o.pending, func(p *pendingForm) time.Time { return p.expires })
	p.expires = now.Add(outcomeLife)
	id := randomID()
	o.pending[id] = p
	return id
}

// takePending returns the form kept as id for doing it, once; later it
// returns the result of doing it (done true).
func (o *outcomes) takePending(id string, now time.Time) (p pendingForm, done, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	pf, ok := o.pending[id]
	if !ok || !now.Before(pf.expires) {
		return pendingForm{}, false, false
	}
	return *pf, pf.result != "", true
}

// donePending records that the form kept as id was done, as result.
func (o *outcomes) donePending(id, result string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if pf, ok := o.pending[id]; ok {
		pf.result = result
		pf.form = nil
	}
}

func (o *outcomes) pruneLocked(now time.Time) {
	for k, r := range o.results {
		if !now.Before(r.expires) {
			delete(o.results, k)
		}
	}
	for k, s := range o.sent {
		if s.result != "" && !now.Before(s.expires) {
			delete(o.sent, k)
		}
	}
	for k, p := range o.pending {
		if !now.Before(p.expires) {
			delete(o.pending, k)
		}
	}
	if len(o.sent) >= 2*maxOutcomes {
		evictOldest(o.sent, func(s *sending) time.Time {
			if s.result == "" {
				return time.Time{}.AddDate(9999, 0, 0) // running: never the oldest
			}
			return s.expires
		})
	}
}

// evictOldest drops the entry of m that expires first when m is full.
func evictOldest[V any](m map[string]V, expires func(V) time.Time) {
	if len(m) < maxOutcomes {
		return
	}
	var oldest string
	var at time.Time
	for k, v := range m {
		if e := expires(v); oldest == "" || e.Before(at) {
			oldest, at = k, e
		}
	}
	delete(m, oldest)
}
