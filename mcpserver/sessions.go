package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/skillstore/skillstore/access"
)

// DefaultMaxSessions is the default cap on live stateful HTTP sessions.
const DefaultMaxSessions = 1000

// DefaultMaxStreams is the default cap on open HTTP streams.
const DefaultMaxStreams = 1000

const (
	// unusedSessionTTL ends a session that no request followed its
	// initialize within this time (or its idle limit, if shorter), so
	// bare initialize requests cannot hold the cap for long.
	unusedSessionTTL = time.Minute
	// maxEnded bounds the ids a stateless replica remembers as ended, and
	// maxEndedID the length of an id it remembers.
	maxEnded   = 10000
	maxEndedID = 128
)

// sessions is the registry of stateful HTTP sessions. The HTTP transport
// checks every legacy request against it before anything answers, so every
// method sees the same sessions. It caps live sessions, in all and per
// principal (see principalKey), evicting the least recently used idle
// session to admit a new one at a cap — the principal's own at its share —
// and ends idle ones. It is safe for concurrent use.
//
// A lenient registry serves a stateless endpoint: it hands out session ids,
// as clients of the initialize handshake expect, but accepts any id or
// none, since another replica may have issued it — except an id ended here
// by DELETE, which this replica refuses for as long as it would have kept a
// session (at most maxEnded of them). It keeps nothing else and caps nothing.
type sessions struct {
	max          int
	perPrincipal int // the share of max one principal may hold
	idle         time.Duration
	lenient      bool

	mu        sync.Mutex
	live      map[string]*sessionState
	held      map[string]int       // live and admitted sessions, by principalKey
	ended     map[string]time.Time // lenient: ids ended here by DELETE, and when
	pending   int                  // initialize requests admitted but not yet answered
	lastSweep time.Time            // when idle sessions were last looked for
}

type sessionState struct {
	sess         *session
	owner        *access.Principal // who opened it: only they may use it (nil: everyone, without authentication)
	key          string            // principalKey(owner): whose share it counts against
	lastActive   time.Time
	used         bool // a request followed the initialize
	initializing bool // its initialize is not yet answered
	busy         int  // requests in flight (an open GET stream is one), its initialize included
}

var (
	errUnknownSession  = errors.New("unknown session")
	errForeignSession  = errors.New("the session belongs to another principal")
	errNoSession       = errors.New("no session")
	errTooManyStreams  = errors.New("too many open streams")
	errTooManySessions = errors.New("every session is busy")
	// errPrincipalSessions and errPrincipalStreams: the caller holds its
	// share of the cap, and each of its sessions is busy.
	errPrincipalSessions = errors.New("every session of this principal is busy")
	errPrincipalStreams  = errors.New("too many open streams of this principal")
	errStreamHeld        = errors.New("the session already holds a GET stream")
)

func newSessions(max, perPrincipal int, idle time.Duration, lenient bool) *sessions {
	return &sessions{max: max, perPrincipal: perPrincipal, idle: idle, lenient: lenient, live: map[string]*sessionState{},
		held: map[string]int{}, ended: map[string]time.Time{}, lastSweep: time.Now()}
}

// principalKey is whose share of the session and stream caps a request
// counts against: the principal's subject. Not its OAuth client, which
// whoever registers one chooses, so that a subject cannot multiply its
// share by registering clients. Every caller no authenticator identified
// (no authentication, or the one shared --auth-token-file token) is one
// principal, the anonymous one, with the key "".
func principalKey(p *access.Principal) string {
	if p == nil {
		return ""
	}
	return p.Subject
}

// DefaultPrincipalShare is the default fraction (1/DefaultPrincipalShare)
// of the session and stream caps one principal may hold when
// authentication tells principals apart.
const DefaultPrincipalShare = 10

// principalShare returns the per-principal limit under a cap: perPrincipal
// if set (at most the cap), else the whole cap when every caller is one
// principal (distinct is false: no authentication tells them apart), else
// a tenth of the cap, at least 1.
func principalShare(perPrincipal, cap int, distinct bool) int {
	switch {
	case perPrincipal > 0:
		return min(perPrincipal, cap)
	case !distinct:
		return cap
	}
	return max(1, cap/DefaultPrincipalShare)
}

// newID mints a session id.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return "mcp-session-" + hex.EncodeToString(b[:])
}

// open registers sess under a new id, bound to owner (the principal of
// its initialize request), busy with its initialize until release, and
// returns the id. A lenient registry keeps nothing.
func (r *sessions) open(sess *session, owner *access.Principal) string {
	id := newID()
	if !r.lenient {
		r.mu.Lock()
		r.live[id] = &sessionState{sess: sess, owner: owner, key: principalKey(owner), lastActive: time.Now(), initializing: true, busy: 1}
		r.mu.Unlock()
	}
	return id
}

// acquire checks a legacy request's session and marks it busy until done
// is called: a busy session is never evicted to make room for another. An
// unknown id, an ended one and an expired one are all errors: an ended
// session is forgotten, so it cannot be told from one that never was (both
// get 404). A session is bound to the principal that opened it: for
// another principal (who, see sameOwner) acquire fails with
// errForeignSession, and the session is left as it was. A lenient registry
// accepts any id but one ended here, and returns no session.
func (r *sessions) acquire(id string, who *access.Principal) (sess *session, done func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lenient {
		if _, ended := r.ended[id]; ended {
			return nil, nil, errUnknownSession
		}
		return nil, func() {}, nil
	}
	if id == "" {
		return nil, nil, errNoSession
	}
	st, ok := r.live[id]
	if !ok {
		return nil, nil, errUnknownSession
	}
	if !sameOwner(st.owner, who) {
		return nil, nil, errForeignSession
	}
	if who != nil && st.sess != nil {
		st.sess.principal.Store(who) // its latest token's: notifications follow it
	}
	st.lastActive, st.used = time.Now(), true
	st.busy++
	return st.sess, func() {
		r.mu.Lock()
		st.busy--
		r.mu.Unlock()
	}, nil
}

// end forgets the session id names and returns it (nil if none). On a
// lenient registry the id is refused from now on.
func (r *sessions) end(id string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lenient {
		if id != "" && len(id) <= maxEndedID {
			if len(r.ended) >= maxEnded {
				for old := range r.ended {
					delete(r.ended, old) // any one: the map stays bounded
					break
				}
			}
			r.ended[id] = time.Now()
		}
		return nil
	}
	st := r.live[id]
	if st == nil {
		return nil
	}
	r.forget(id, st)
	return st.sess
}

// forget removes a live session; r.mu is held.
func (r *sessions) forget(id string, st *sessionState) {
	delete(r.live, id)
	if r.held[st.key]--; r.held[st.key] <= 0 {
		delete(r.held, st.key) // the map holds the principals with sessions, no more
	}
}

// admit reserves room for a new session of the principal whose key is
// key (principalKey). At the principal's own share it makes room by
// evicting that principal's least recently used session that is not busy
// (no request in flight, no open GET stream, its initialize answered), so
// one principal never takes another's place; below its share but at the
// cap, the least recently used idle session of anyone. The registry
// forgets the evicted session at once, so its id gets 404 from then on, as
// an ended one does, and a client re-initializes; admit returns that
// session for the caller to end. When no session it may evict is idle, it
// fails with errPrincipalSessions (at the principal's share) or
// errTooManySessions (at the cap). The caller calls open, then release
// once the initialize request is answered.
func (r *sessions) admit(key string) (evicted *session, evictedID string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lenient {
		r.pending++
		return nil, "", nil
	}
	var lru *sessionState
	switch {
	case r.perPrincipal < r.max && r.held[key] >= r.perPrincipal: // a share of the cap, not the whole
		evictedID, lru = r.leastRecent(key, true)
		if lru == nil {
			return nil, "", errPrincipalSessions
		}
	case len(r.live)+r.pending >= r.max:
		evictedID, lru = r.leastRecent("", false)
		if lru == nil {
			return nil, "", errTooManySessions
		}
	}
	if lru != nil {
		r.forget(evictedID, lru)
		evicted = lru.sess
	}
	r.pending++
	r.held[key]++ // until the session it opens is forgotten
	return evicted, evictedID, nil
}

// leastRecent returns the least recently used session that is not busy:
// of the principal whose key is key when mine is set, else of anyone.
// r.mu is held.
func (r *sessions) leastRecent(key string, mine bool) (string, *sessionState) {
	var id string
	var lru *sessionState
	for sid, st := range r.live {
		if st.busy == 0 && (!mine || st.key == key) && (lru == nil || st.lastActive.Before(lru.lastActive)) {
			id, lru = sid, st
		}
	}
	return id, lru
}

// release ends an admitted initialize; id is the session it was given, if
// any, which is no longer busy with its initialize.
func (r *sessions) release(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending--
	if st := r.live[id]; st != nil && st.initializing {
		st.initializing = false
		st.busy--
	}
}

// Len returns the number of live sessions.
func (r *sessions) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// expired forgets and returns the sessions idle longer than the idle limit
// (or unused since their initialize for unusedSessionTTL), looking at most
// every half of the shorter of the two; the caller ends them. It also
// forgets ended ids older than the idle limit.
func (r *sessions) expired(now time.Time) map[string]*session {
	if r.idle <= 0 {
		return nil
	}
	unused := min(r.idle, unusedSessionTTL)
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastSweep) < unused/2 {
		return nil
	}
	r.lastSweep = now
	for id, at := range r.ended {
		if now.Sub(at) > r.idle {
			delete(r.ended, id)
		}
	}
	var gone map[string]*session
	for id, st := range r.live {
		if idle := now.Sub(st.lastActive); st.busy == 0 && (idle > r.idle || !st.used && idle > unused) {
			if gone == nil {
				gone = map[string]*session{}
			}
			gone[id] = st.sess
			r.forget(id, st)
		}
	}
	return gone
}

// streams caps the open long-lived HTTP streams of both kinds: legacy GET
// streams and 2026-07-28 subscriptions/listen streams, which need no
// session, so the session cap does not bound them. Each holds a connection
// and a few goroutines until its client goes away or the server ends it.
// One principal (principalKey) holds at most its share of the cap, so that
// it cannot take every place. A legacy session holds at most one GET
// stream, as clients use one. It is the transport's own bound, independent
// of the MCP engine behind it, and safe for concurrent use.
type streams struct {
	max          int
	perPrincipal int

	mu    sync.Mutex
	open  int
	byKey map[string]int  // open streams by principalKey
	gets  map[string]bool // the session ids holding a GET stream
}

func newStreams(max, perPrincipal int) *streams {
	return &streams{max: max, perPrincipal: perPrincipal, byKey: map[string]int{}, gets: map[string]bool{}}
}

// acquire takes a place for a stream of the principal whose key is key —
// a GET stream of session, if session is not empty — or fails with
// errStreamHeld (the session holds one), errPrincipalStreams (the
// principal holds its share) or errTooManyStreams. release frees the
// place; call it once the stream has ended (more calls do nothing).
func (s *streams) acquire(session, key string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if session != "" && s.gets[session] {
		return nil, errStreamHeld
	}
	if s.open >= s.max {
		return nil, errTooManyStreams
	}
	if s.byKey[key] >= s.perPrincipal {
		return nil, errPrincipalStreams
	}
	s.open++
	s.byKey[key]++
	if session != "" {
		s.gets[session] = true
	}
	return sync.OnceFunc(func() {
		s.mu.Lock()
		s.open--
		if s.byKey[key]--; s.byKey[key] <= 0 {
			delete(s.byKey, key)
		}
		delete(s.gets, session)
		s.mu.Unlock()
	}), nil
}

// Len returns the number of open streams.
func (s *streams) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}
