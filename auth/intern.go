package auth

import (
	"strings"
	"sync"
)

// Bounds of an interner: it holds at most maxInterned values of each kind,
// each at most maxInternedBytes long (a list's values joined), so at most
// a few MiB; once full it returns values as they are.
const (
	maxInterned      = 4096
	maxInternedBytes = 1024
)

// interner shares what repeats across tokens — client ids, group lists,
// scope lists — so that a cache of 100,000 tokens from a few clients and
// teams holds one copy of each instead of 100,000. The shared values are
// read-only, as a Principal's fields are. It is safe for concurrent use.
type interner struct {
	mu    sync.Mutex
	strs  map[string]string
	lists map[string][]string
}

// str returns the shared copy of s.
func (in *interner) str(s string) string {
	if s == "" || len(s) > maxInternedBytes {
		return s
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if v, ok := in.strs[s]; ok {
		return v
	}
	if in.strs == nil {
		in.strs = make(map[string]string)
	}
	if len(in.strs) < maxInterned {
		in.strs[s] = s
	}
	return s
}

// list returns the shared copy of l (equal values in the same order).
func (in *interner) list(l []string) []string {
	n := len(l)
	for _, s := range l {
		n += len(s)
	}
	if len(l) == 0 || n > maxInternedBytes {
		return l
	}
	key := strings.Join(l, "\x00")
	in.mu.Lock()
	defer in.mu.Unlock()
	if v, ok := in.lists[key]; ok {
		return v
	}
	if in.lists == nil {
		in.lists = make(map[string][]string)
	}
	if len(in.lists) < maxInterned {
		l = l[:len(l):len(l)] // an append by a careless caller copies
		in.lists[key] = l
	}
	return l
}
