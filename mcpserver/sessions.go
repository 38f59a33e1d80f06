package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// DefaultMaxSessions is the default cap on live stateful HTTP sessions.
const DefaultMaxSessions = 1000

// sessions is the registry of HTTP sessions. It is mcp-go's
// SessionIdManager (mcp-go mints ids through Generate, checks them
// through Validate and ends them through Terminate on DELETE), and the
// protocol layer checks every request against it before anything answers,
// so every method sees the same sessions. It caps live sessions and ends
// idle ones. It is safe for concurrent use.
//
// A lenient registry serves a stateless endpoint: it hands out session ids,
// as clients of the initialize handshake expect, but accepts any id or
// none, since another replica may have issued it — except an id ended here
// by DELETE, which this replica refuses for as long as it would have kept
// the session. It keeps the ids it issued only to end mcp-go's state for
// them once idle, and caps nothing.
type sessions struct {
	max     int
	idle    time.Duration
	lenient bool

	mu        sync.Mutex
	live      map[string]*sessionState
	ended     map[string]time.Time // lenient: ids ended here, and when
	pending   int                  // initialize requests admitted but not yet answered
	lastSweep time.Time            // when idle sessions were last looked for
}

type sessionState struct {
	lastActive time.Time
}

var (
	errUnknownSession = errors.New("unknown session")
	errNoSession      = errors.New("no session")
)

func newSessions(max int, idle time.Duration, lenient bool) *sessions {
	return &sessions{max: max, idle: idle, lenient: lenient, live: make(map[string]*sessionState), ended: make(map[string]time.Time), lastSweep: time.Now()}
}

// Generate mints and registers a session id (mcp-go calls it for initialize).
func (r *sessions) Generate() string {
	var b [16]byte
	rand.Read(b[:])
	id := "mcp-session-" + hex.EncodeToString(b[:])
	r.mu.Lock()
	r.live[id] = &sessionState{lastActive: time.Now()}
	r.mu.Unlock()
	return id
}

// Validate reports whether id names a live session, and records activity.
// An unknown id, a terminated one and an expired one are all errors: a
// terminated session is forgotten, so it cannot be told from one that
// never was (both get 404).
func (r *sessions) Validate(id string) (isTerminated bool, err error) {
	if id == "" && !r.lenient {
		return false, errNoSession
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.live[id]
	if !ok {
		if _, ended := r.ended[id]; r.lenient && !ended {
			return false, nil
		}
		return false, errUnknownSession
	}
	st.lastActive = time.Now()
	return false, nil
}

// Terminate ends a session (mcp-go calls it on DELETE and when it sweeps).
func (r *sessions) Terminate(id string) (isNotAllowed bool, err error) {
	r.mu.Lock()
	delete(r.live, id)
	if r.lenient && id != "" {
		r.ended[id] = time.Now()
	}
	r.mu.Unlock()
	return false, nil
}

// admit reserves room for a new session, or reports that the cap is
// reached. The caller calls release once the initialize request is answered.
func (r *sessions) admit() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.lenient && len(r.live)+r.pending >= r.max {
		return false
	}
	r.pending++
	return true
}

func (r *sessions) release() {
	r.mu.Lock()
	r.pending--
	r.mu.Unlock()
}

// Len returns the number of live sessions.
func (r *sessions) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// expired returns the sessions idle longer than the idle limit, at most
// once per half that limit; the caller ends them (through mcp-go, which
// tears down their streams and calls Terminate).
func (r *sessions) expired(now time.Time) []string {
	if r.idle <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastSweep) < r.idle/2 {
		return nil
	}
	r.lastSweep = now
	for id, at := range r.ended {
		if now.Sub(at) > r.idle {
			delete(r.ended, id)
		}
	}
	var ids []string
	for id, st := range r.live {
		if now.Sub(st.lastActive) > r.idle {
			ids = append(ids, id)
		}
	}
	return ids
}
