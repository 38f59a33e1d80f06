package store

import (
	"context"
	"time"
)

// SourceStatus is the state of one source, as a status page shows it.
type SourceStatus struct {
	Source SourceRef
	// Kind names the source's backend (Source.Kind).
	Kind string
	// Provenance is that of the snapshot of the source the current
	// catalog was built from (its revision and signer); nil when the
	// source was never listed.
	Provenance *Provenance
	// Listed reports whether the current catalog holds a listing of the
	// source: false when it could not be listed (nothing of it is served).
	Listed bool
	// Answered is when the source last answered a listing or a refresh;
	// zero when it has not yet.
	Answered time.Time
	// Failing reports that its last listing or refresh failed, since
	// Since. Meanwhile its last good listing is served, if Listed.
	Failing bool
	Since   time.Time
	// Detail says what is wrong in words safe to show anyone (a
	// backend's PublicError, else "temporarily unavailable"); Err is the
	// failure in full, which may name hosts: for logs only.
	Detail string
	Err    error
}

// status returns the state of every source, in priority order, as of
// the current catalog.
func (s *Store) status(ctx context.Context) ([]SourceStatus, error) {
	c, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SourceStatus, len(s.sources))
	for i, src := range s.sources {
		st := SourceStatus{Source: s.refs[i], Kind: src.Kind, Provenance: s.provenances[i].Load()}
		if i < len(c.results) && c.results[i] != nil {
			st.Listed = c.results[i].problem == nil
		}
		if !st.Listed {
			st.Provenance = nil
		}
		if t := s.answered[i].Load(); t != 0 {
			st.Answered = time.Unix(0, t)
		}
		if f := s.failing[i].Load(); f != nil {
			st.Failing, st.Since, st.Err, st.Detail = true, f.since, f.err, publicDetail(f.err)
		} else if !st.Listed && i < len(c.results) && c.results[i] != nil {
			p := c.results[i].problem
			st.Failing, st.Detail, st.Err = true, p.Message, p.err
		}
		out[i] = st
	}
	return out, nil
}
