package store

// RequestCounter is implemented by backends that count their requests to a
// remote store (object storage: LIST pages and GETs).
type RequestCounter interface {
	RequestCounts() (list, get uint64)
}

// SourceRequests are one source's request counts.
type SourceRequests struct {
	Source    SourceRef
	List, Get uint64
}

// requests returns the request counts of the sources that keep them
// (Stats.Requests).
func (s *Store) requests() []SourceRequests {
	var out []SourceRequests
	for _, src := range s.sources {
		if rc, ok := src.FS.(RequestCounter); ok {
			l, g := rc.RequestCounts()
			out = append(out, SourceRequests{Source: ref(src), List: l, Get: g})
		}
	}
	return out
}
