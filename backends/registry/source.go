package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/store"
)

// counts are the requests a registry made to its store.
type counts struct{ list, get atomic.Uint64 }

// viewCache is the served view and the log position it was made at.
type viewCache struct {
	mu   sync.Mutex
	seq  uint64
	made bool
	v    *published
	err  error
	// problems are the skills left out of v, by the entry of the version
	// left out, and why.
	problems map[uint64]string
}

// published is the registry as a snapshot: each skill's latest version
// (under a trust list, its latest signed one) as one manifest in memory.
type published struct {
	*snapshot.View
	versions map[string]*store.SkillVersion // by skill name
}

// Published is the snapshot's listing, each skill with its version.
func (p *published) Published() []store.PublishedSkill {
	out := p.View.Published()
	for i := range out {
		out[i].Version = p.versions[out[i].Dir]
	}
	return out
}

// WithContext keeps the versions on a view bound to ctx.
func (p *published) WithContext(ctx context.Context) fs.FS {
	return &published{View: p.View.WithContext(ctx).(*snapshot.View), versions: p.versions}
}

// Source returns the registry as a store source: the latest version of
// each skill, named as the skill, as a snapshot the store pins per
// catalog (store.SnapshotFS). A Refresh reads the log entries written
// since the last one (one request when there are none) and the next
// snapshot is made when asked for, about a tenth of a second at 100,000
// skills. The source does not close the registry.
func (r *Registry) Source(label string) store.Source {
	return store.Source{Label: label, Location: r.opts.Location, Kind: "registry", FS: &sourceFS{r}}
}

type sourceFS struct{ r *Registry }

var (
	_ store.SnapshotFS     = (*sourceFS)(nil)
	_ store.Refresher      = (*sourceFS)(nil)
	_ store.RequestCounter = (*sourceFS)(nil)
)

func (s *sourceFS) Refresh(ctx context.Context) error { return s.r.Refresh(ctx) }

func (s *sourceFS) RequestCounts() (list, get uint64) {
	return s.r.counts.list.Load(), s.r.counts.get.Load()
}

func (s *sourceFS) Snapshot(ctx context.Context) (fs.FS, error) {
	v, err := s.r.published()
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (s *sourceFS) Open(name string) (fs.File, error) {
	v, err := s.r.published()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return v.Open(name)
}

func (s *sourceFS) Stat(name string) (fs.FileInfo, error) {
	v, err := s.r.published()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return v.Stat(name)
}

func (s *sourceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	v, err := s.r.published()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return v.ReadDir(name)
}

// published returns the snapshot of the state as it is, made once per
// log position.
func (r *Registry) published() (*published, error) {
	c := &r.view
	c.mu.Lock()
	defer c.mu.Unlock()
	seq := r.seq()
	if c.made && c.seq == seq {
		return c.v, c.err
	}
	r.mu.RLock()
	m := &snapshot.Manifest{ID: fmt.Sprintf("log-%d", r.st.Seq), Skills: make([]snapshot.Skill, 0, len(r.st.ids))}
	versions := make(map[string]*store.SkillVersion, len(r.st.ids))
	seqs := make([]uint64, 0, len(r.st.ids)) // the entry of each skill's version
	for _, id := range r.st.ids {
		sk := r.st.skills[id]
		v := r.served(sk)
		if v == nil {
			continue
		}
		m.Skills = append(m.Skills, snapshot.Skill{Dir: sk.Name, DocPath: v.DocPath, Frontmatter: v.Frontmatter, Headings: v.Headings, Files: v.Files, Findings: v.Findings})
		versions[sk.Name] = &store.SkillVersion{ID: v.ID, Digest: v.Digest, CreatedBy: v.By, Created: v.Created, Signer: v.Signer}
		seqs = append(seqs, v.Seq)
	}
	seq = r.st.Seq
	r.mu.RUnlock()
	view, err := snapshot.NewView(m, objects{r})
	var problems map[uint64]string
	if err != nil {
		// A version edited by hand (a path out of its folder, a repeated
		// path, a bad digest) fails the whole manifest: leave out the
		// skills that fail, report them, serve the rest.
		problems = r.dropBad(m, seqs)
		view, err = snapshot.NewView(m, objects{r})
	}
	if err != nil {
		err = fmt.Errorf("the registry %s: %w", r.opts.Location, err)
	}
	c.seq, c.made, c.err, c.v, c.problems = seq, true, err, nil, problems
	if err == nil {
		c.v = &published{View: view, versions: versions}
	}
	return c.v, c.err
}

// dropBad removes from m the skills that fail snapshot.Skill.Check or
// repeat a folder (seqs[i] is the entry of m.Skills[i]'s version), logs
// each and returns them by entry.
func (r *Registry) dropBad(m *snapshot.Manifest, seqs []uint64) map[uint64]string {
	bad := map[uint64]string{}
	seen := make(map[string]bool, len(m.Skills))
	kept := m.Skills[:0]
	for i, sk := range m.Skills {
		err := sk.Check()
		if err == nil && seen[sk.Dir] {
			err = errors.New("a second skill of one name")
		}
		if err != nil {
			why := fmt.Sprintf("skill %q not served: %v", sk.Dir, err)
			bad[seqs[i]] = why
			r.opts.Logger.Warn("registry skill not served", "registry", r.opts.Location, "entry", seqs[i], "reason", why)
			continue
		}
		seen[sk.Dir] = true
		kept = append(kept, sk)
	}
	m.Skills = kept
	return bad
}

// served is the version of sk agents get: the one Options.Pins names, or
// its latest, or under a trust list its latest signed by a trusted key;
// nil for none.
func (r *Registry) served(sk *skill) *version {
	if r.opts.Pins != nil {
		if id, ok := r.opts.Pins(sk.Name); ok {
			if _, v := sk.find(id); v != nil && (r.opts.Trust == nil || v.signed) {
				return v
			}
		}
	}
	for i := len(sk.Versions) - 1; i >= 0; i-- {
		if v := sk.Versions[i]; r.opts.Trust == nil || v.signed {
			return v
		}
	}
	return nil
}

// objects reads blobs for the view, counting the requests.
type objects struct{ r *Registry }

func (o objects) ReadObject(ctx context.Context, key string, max int64) ([]byte, error) {
	o.r.counts.get.Add(1)
	return o.r.b.ReadObject(ctx, key, max)
}

func (o objects) ObjectTag(context.Context, string) (string, error) {
	return "", errors.ErrUnsupported
}
