// Package usage counts how often each skill is loaded, by how many
// distinct principals, and when it was last loaded, and keeps the counts
// across restarts in a small JSON file.
//
// A Counter holds counts, never content or tokens. Principals are kept
// as 64-bit salted SHA-256 hashes of their subjects, not the subjects, so
// the counter and its file can say how many distinct principals loaded a
// skill but not which; nothing here lists principals. The memory held is
// bounded: at most MaxSkills skills are tracked (loads of further skills
// are counted in Totals.Untracked only) and at most MaxPrincipals
// distinct principals per skill (beyond it the count shows "N+").
//
// Counts are those of one process: replicas each keep their own file.
package usage

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Default bounds (Options). At the defaults the principal sets hold at
// most about a million hashes: some tens of MiB in memory and in the file.
const (
	DefaultMaxSkills     = 4096
	DefaultMaxPrincipals = 256
)

// Options tune a Counter.
type Options struct {
	// MaxSkills bounds the skills tracked (default DefaultMaxSkills).
	MaxSkills int
	// MaxPrincipals bounds the distinct principals counted per skill
	// (default DefaultMaxPrincipals).
	MaxPrincipals int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o *Options) defaults() {
	if o.MaxSkills <= 0 {
		o.MaxSkills = DefaultMaxSkills
	}
	if o.MaxPrincipals <= 0 {
		o.MaxPrincipals = DefaultMaxPrincipals
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Counter counts skill loads. It is safe for concurrent use.
type Counter struct {
	opts Options
	file string // Open's file; "" for New

	mu        sync.Mutex
	salt      [16]byte
	skills    map[string]*entry
	loads     uint64 // every load recorded, tracked or not
	untracked uint64 // loads of skills past MaxSkills
	dirty     bool   // changed since the last save

	saveMu       sync.Mutex // one save at a time
	saveFailures uint64     // under mu
	failing      bool       // under saveMu: the last save failed
}

// entry is one skill's counts.
type entry struct {
	loads      uint64
	principals map[uint64]struct{}
	more       bool // principals beyond MaxPrincipals were seen
	last       time.Time
}

// New returns an empty counter, not kept in a file.
func New(opts Options) *Counter {
	opts.defaults()
	c := &Counter{opts: opts, skills: make(map[string]*entry)}
	rand.Read(c.salt[:])
	return c
}

// Record counts one load of skill by the principal whose subject is
// given ("": an anonymous caller, counted as a load but not as a
// principal).
func (c *Counter) Record(skill, subject string) {
	if skill == "" {
		return
	}
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads++
	c.dirty = true
	e := c.skills[skill]
	if e == nil {
		if len(c.skills) >= c.opts.MaxSkills {
			c.untracked++
			return
		}
		e = &entry{}
		c.skills[strings.Clone(skill)] = e
	}
	e.loads++
	if now.After(e.last) {
		e.last = now
	}
	if subject == "" {
		return
	}
	h := c.hash(subject)
	if _, ok := e.principals[h]; ok {
		return
	}
	if len(e.principals) >= c.opts.MaxPrincipals {
		e.more = true
		return
	}
	if e.principals == nil {
		e.principals = make(map[uint64]struct{})
	}
	e.principals[h] = struct{}{}
}

// hash is subject's salted hash. Called with mu held.
func (c *Counter) hash(subject string) uint64 {
	h := sha256.New()
	h.Write(c.salt[:])
	h.Write([]byte(subject))
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint64(h.Sum(sum[:0]))
}

// Stat is one skill's usage.
type Stat struct {
	Skill string `json:"skill"`
	Loads uint64 `json:"loads"`
	// Principals is the number of distinct principals that loaded the
	// skill; with MorePrincipals, at least that many (the bound was hit).
	Principals     int       `json:"principals"`
	MorePrincipals bool      `json:"more_principals,omitempty"`
	LastUsed       time.Time `json:"last_used,omitzero"`
}

// PrincipalsText is Principals as a person reads it: "12", or "256+"
// past the bound.
func (s Stat) PrincipalsText() string {
	t := strconv.Itoa(s.Principals)
	if s.MorePrincipals {
		t += "+"
	}
	return t
}

// Stats returns every tracked skill's usage, most loaded first (then by
// name).
func (c *Counter) Stats() []Stat {
	c.mu.Lock()
	out := make([]Stat, 0, len(c.skills))
	for name, e := range c.skills {
		out = append(out, e.stat(name))
	}
	c.mu.Unlock()
	Sort(out)
	return out
}

func (e *entry) stat(name string) Stat {
	return Stat{Skill: name, Loads: e.loads, Principals: len(e.principals), MorePrincipals: e.more, LastUsed: e.last}
}

// Stat returns skill's usage, and false when no load of it is tracked.
func (c *Counter) Stat(skill string) (Stat, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.skills[skill]
	if !ok {
		return Stat{}, false
	}
	return e.stat(skill), true
}

// Sort orders stats most loaded first, then by name.
func Sort(stats []Stat) { slices.SortFunc(stats, compare) }

// compare orders a before b when it was loaded more, then by name.
func compare(a, b Stat) int {
	if a.Loads != b.Loads {
		if a.Loads > b.Loads {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Skill, b.Skill)
}

// Totals are a counter's figures over every skill.
type Totals struct {
	Loads        uint64 // loads recorded since the counts began (kept in the file)
	Untracked    uint64 // of which, loads of skills past MaxSkills
	Skills       int    // skills tracked
	SaveFailures uint64 // saves of the file that failed, in this process
}

// Totals returns the counter's totals.
func (c *Counter) Totals() Totals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Totals{Loads: c.loads, Untracked: c.untracked, Skills: len(c.skills), SaveFailures: c.saveFailures}
}
