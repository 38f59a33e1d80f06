package registry

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

var _ skillsapi.Registry = (*Registry)(nil)

// all is the view that sees every skill.
func all(string) bool { return true }

func seen(visible func(string) bool) func(string) bool {
	if visible == nil {
		return all
	}
	return visible
}

// noSkill is the answer for a skill that does not exist or that the
// caller may not see: one text for both.
func noSkill(id string) error {
	return skillsapi.Errorf(http.StatusNotFound, "skill %q not found", store.Echo(id))
}

func noVersion(id, ver string) error {
	return skillsapi.Errorf(http.StatusNotFound, "version %q of skill %q not found", store.Echo(ver), store.Echo(id))
}

// lookup returns skill id when the caller may see it (r.mu held).
func (r *Registry) lookup(id string, visible func(string) bool) (*skill, error) {
	sk := r.st.skills[id]
	if sk == nil || !seen(visible)(sk.Name) {
		return nil, noSkill(id)
	}
	return sk, nil
}

// read runs f under the read lock. When f answers 404, the registry
// reads the log entries written since its last refresh (one request when
// there are none) and runs f again: a skill or version another replica
// just wrote is found at once, wherever the caller's next request lands.
func (r *Registry) read(ctx context.Context, f func() error) error {
	r.mu.RLock()
	seen := r.st.Seq
	err := f()
	r.mu.RUnlock()
	if status(err) != http.StatusNotFound {
		return err
	}
	// A refresh may apply the entry between f and catchUp: what counts
	// is whether the state moved since f read it, not who moved it.
	if _, cerr := r.catchUp(ctx); cerr != nil || r.seq() == seen {
		return err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return f()
}

func status(err error) int {
	var e *skillsapi.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func wireSkill(sk *skill) skillsapi.Skill {
	return skillsapi.Skill{
		ID: sk.ID, CreatedAt: sk.Created, UpdatedAt: sk.Updated, DisplayName: sk.DisplayName,
		LatestVersionID: sk.latest().ID, Source: skillsapi.SourceCustom, Name: sk.Name,
	}
}

// wireVersion is v of sk on the wire, with its review state on this
// replica, its last decision and the channels pointing at it.
func (r *Registry) wireVersion(sk *skill, v *version) skillsapi.Version {
	out := skillsapi.Version{
		ID: v.ID, SkillID: sk.ID, Name: sk.Name, Description: v.Description,
		CreatedAt: v.Created, Digest: v.Digest, CreatedBy: v.By,
		Channels: sk.channelsAt(v.ID),
	}
	g := r.gate()
	out.Status = g.status(sk, v)
	if rv := sk.Reviews[v.ID]; rv != nil {
		out.Review = &skillsapi.Review{Approve: rv.Approve, By: rv.By, Time: rv.Time, Reason: rv.Reason, Digest: rv.Digest}
		if s, ok := g.counts(sk, v, rv); ok && s.Fingerprint != "" {
			out.Review.Signer = s.Principal + " " + s.Fingerprint
		}
	}
	return out
}

// CreateSkill stores sk as a new skill with its first version: its
// blobs, then one log entry. A name taken is a 409 (skill_name_taken).
func (r *Registry) CreateSkill(ctx context.Context, by string, sk *skillcheck.Skill, displayName string) (skillsapi.Skill, skillsapi.Version, error) {
	now := r.opts.Now().UTC()
	v, err := r.newVersion(ctx, by, sk, now)
	if err != nil {
		return skillsapi.Skill{}, skillsapi.Version{}, err
	}
	if displayName == "" {
		displayName = sk.Frontmatter.Name
	}
	id := newID(skillPrefix, now)
	e, err := r.commit(ctx, func(st *state) (*entry, error) {
		if _, ok := st.byName[sk.Name]; ok {
			return nil, &skillsapi.Error{Status: http.StatusConflict, Code: "skill_name_taken",
				Message: fmt.Sprintf("a skill named %q exists: add a version to it (POST /v1/skills/{id}/versions)", sk.Name)}
		}
		return &entry{Op: opCreate, Time: now, By: by, Skill: id, Name: sk.Name, DisplayName: displayName, Version: v}, nil
	})
	if err != nil {
		return skillsapi.Skill{}, skillsapi.Version{}, err
	}
	s := &skill{ID: e.Skill, Name: e.Name, DisplayName: e.DisplayName, Created: e.Time, Updated: e.Time, Versions: []*version{e.Version}}
	return wireSkill(s), r.wireVersion(s, e.Version), nil
}

// CreateVersion stores sk as skill id's newest version. Its name must be
// the skill's (400 otherwise).
func (r *Registry) CreateVersion(ctx context.Context, by, id string, sk *skillcheck.Skill, visible func(string) bool) (skillsapi.Version, error) {
	var cur *skill
	err := r.read(ctx, func() (err error) {
		cur, err = r.lookup(id, visible)
		return err
	})
	if err != nil {
		return skillsapi.Version{}, err
	}
	if cur.Name != sk.Name {
		return skillsapi.Version{}, skillsapi.Errorf(http.StatusBadRequest, "the upload is skill %q, but skill %q is named %q: every version keeps the skill's name", sk.Name, id, cur.Name)
	}
	now := r.opts.Now().UTC()
	v, err := r.newVersion(ctx, by, sk, now)
	if err != nil {
		return skillsapi.Version{}, err
	}
	e, err := r.commit(ctx, func(st *state) (*entry, error) {
		if _, err := r.lookup(id, visible); err != nil {
			return nil, err // deleted meanwhile
		}
		return &entry{Op: opVersion, Time: now, By: by, Skill: id, Version: v}, nil
	})
	if err != nil {
		return skillsapi.Version{}, err
	}
	return r.wireVersion(cur, e.Version), nil
}

// newVersion uploads sk's blobs that are not stored yet and returns the
// version record.
func (r *Registry) newVersion(ctx context.Context, by string, sk *skillcheck.Skill, t time.Time) (*version, error) {
	v := &version{ID: newID(versionPrefix, t), Created: t, By: by, Description: sk.Frontmatter.Description, DocPath: sk.DocPath, Findings: sk.Findings}
	var doc []byte
	v.Files = make([]snapshot.File, len(sk.Files))
	for i, f := range sk.Files {
		sum := sha256.Sum256(f.Data)
		v.Files[i] = snapshot.File{Path: f.Path, Size: int64(len(f.Data)), ModTime: t, SHA256: hex.EncodeToString(sum[:])}
		if f.Path == sk.DocPath {
			doc = f.Data
		}
	}
	v.Digest = digestOf(v.Files)
	var err error
	if v.Frontmatter, v.Headings, err = snapshot.DescribeDocument(doc); err != nil {
		return nil, skillsapi.Errorf(http.StatusBadRequest, "%s: %v", sk.DocPath, err)
	}
	if err := r.putBlobs(ctx, sk.Files, v.Files); err != nil {
		return nil, err
	}
	return v, nil
}

// digestOf is a version's digest (skillsapi.Version.Digest): the one
// definition, lockfile.FilesDigest, so a lock's pin names it too.
func digestOf(files []snapshot.File) string {
	list := make([]lockfile.FileDigest, len(files))
	for i, f := range files {
		list[i] = lockfile.FileDigest{Path: f.Path, SHA256: f.SHA256}
	}
	return lockfile.FilesDigest(list)
}

// putBlobs stores each file's content under its digest unless an object
// of its size is there already (one LIST each, then a PUT when
// missing), 8 at a time.
func (r *Registry) putBlobs(ctx context.Context, files []skillcheck.File, recs []snapshot.File) error {
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	sem := make(chan struct{}, 8)
	for i := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			key := snapshot.BlobKey(recs[i].SHA256)
			have := false
			r.counts.list.Add(1)
			err := r.b.WalkObjects(ctx, key, func(o snapshot.ObjectInfo) error {
				have = have || o.Key == key && o.Size == recs[i].Size
				return nil
			})
			if err == nil && !have {
				sum := md5.Sum(files[i].Data)
				err = r.b.WriteObject(ctx, key, bytes.NewReader(files[i].Data), snapshot.ObjectAttrs{ContentType: "application/octet-stream", ContentMD5: sum[:]})
			}
			if err != nil {
				errs[i] = fmt.Errorf("storing %s: %w", recs[i].Path, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Skill returns skill id.
func (r *Registry) Skill(ctx context.Context, id string, visible func(string) bool) (out skillsapi.Skill, err error) {
	err = r.read(ctx, func() error {
		sk, err := r.lookup(id, visible)
		if err == nil {
			out = wireSkill(sk)
		}
		return err
	})
	return out, err
}

// SkillByName returns the skill named name, found in the name index
// (one map read, whatever the number of skills).
func (r *Registry) SkillByName(ctx context.Context, name string, visible func(string) bool) (skillsapi.Skill, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	id, ok := r.st.byName[name]
	if !ok || !seen(visible)(name) {
		return skillsapi.Skill{}, noSkill(name)
	}
	sk, err := r.lookup(id, visible)
	if err != nil {
		return skillsapi.Skill{}, noSkill(name)
	}
	return wireSkill(sk), nil
}

// Skills lists skills oldest first (by ID, which sorts by creation).
func (r *Registry) Skills(ctx context.Context, after string, limit int, visible func(string) bool) ([]skillsapi.Skill, bool, error) {
	visible = seen(visible)
	r.mu.RLock()
	defer r.mu.RUnlock()
	i, found := slices.BinarySearch(r.st.ids, after)
	if found {
		i++
	}
	var page []skillsapi.Skill
	for ; i < len(r.st.ids); i++ {
		sk := r.st.skills[r.st.ids[i]]
		if !visible(sk.Name) {
			continue
		}
		if len(page) == limit {
			return page, true, nil
		}
		page = append(page, wireSkill(sk))
	}
	return page, false, nil
}

// Versions lists skill id's versions newest first.
func (r *Registry) Versions(ctx context.Context, id, after string, limit int, visible func(string) bool) (page []skillsapi.Version, more bool, err error) {
	err = r.read(ctx, func() error {
		page, more, err = r.versions(id, after, limit, visible)
		return err
	})
	return page, more, err
}

// versions is Versions under the read lock.
func (r *Registry) versions(id, after string, limit int, visible func(string) bool) ([]skillsapi.Version, bool, error) {
	sk, err := r.lookup(id, visible)
	if err != nil {
		return nil, false, err
	}
	i := len(sk.Versions) - 1
	if after != "" {
		j, v := sk.find(after)
		if v == nil {
			// Deleted since the page was given: go on from the newest
			// version older than it (IDs sort by creation time).
			for j = len(sk.Versions); j > 0 && sk.Versions[j-1].ID >= after; j-- {
			}
		}
		i = j - 1
	}
	var page []skillsapi.Version
	for ; i >= 0; i-- {
		if len(page) == limit {
			return page, true, nil
		}
		page = append(page, r.wireVersion(sk, sk.Versions[i]))
	}
	return page, false, nil
}

// version returns a version of skill id, "latest" resolved (r.mu held).
func (r *Registry) version(id, ver string, visible func(string) bool) (*skill, *version, error) {
	sk, err := r.lookup(id, visible)
	if err != nil {
		return nil, nil, err
	}
	if ver == "latest" {
		return sk, sk.latest(), nil
	}
	_, v := sk.find(ver)
	if v == nil {
		return nil, nil, noVersion(id, ver)
	}
	return sk, v, nil
}

// Version returns a version of skill id: its ID or "latest".
func (r *Registry) Version(ctx context.Context, id, ver string, visible func(string) bool) (out skillsapi.Version, err error) {
	err = r.read(ctx, func() error {
		sk, v, err := r.version(id, ver, visible)
		if err == nil {
			out = r.wireVersion(sk, v)
		}
		return err
	})
	return out, err
}

// DeleteSkill deletes skill id and its versions from the log's state.
func (r *Registry) DeleteSkill(ctx context.Context, by, id string, visible func(string) bool) error {
	_, err := r.commit(ctx, func(st *state) (*entry, error) {
		if _, err := r.lookup(id, visible); err != nil {
			return nil, err
		}
		return &entry{Op: opDeleteSkill, Time: r.opts.Now().UTC(), By: by, Skill: id}, nil
	})
	return err
}

// DeleteVersion deletes one version, named by its ID; the only version
// of a skill is refused (delete the skill).
func (r *Registry) DeleteVersion(ctx context.Context, by, id, ver string, visible func(string) bool) (skillsapi.Version, error) {
	if ver == "latest" {
		return skillsapi.Version{}, skillsapi.Errorf(http.StatusBadRequest, "name the version to delete by its id, not \"latest\"")
	}
	var gone skillsapi.Version
	_, err := r.commit(ctx, func(st *state) (*entry, error) {
		sk, v, err := r.version(id, ver, visible)
		if err != nil {
			return nil, err
		}
		if len(sk.Versions) == 1 {
			return nil, skillsapi.Errorf(http.StatusBadRequest, "version %q is the only version of skill %q: a skill keeps at least one; delete the skill instead", ver, id)
		}
		if names := sk.channelsAt(v.ID); len(names) > 0 {
			return nil, skillsapi.Errorf(http.StatusConflict, "channel %s points at version %q: promote another version to it first", names[0], ver)
		}
		gone = r.wireVersion(sk, v)
		return &entry{Op: opDeleteVersion, Time: r.opts.Now().UTC(), By: by, Skill: id, VersionID: ver}, nil
	})
	return gone, err
}

// Refresh reads the log entries written since the last refresh (one
// request when there are none). A refresh asked for while one is under
// way waits for that one (its sources, one per channel, are refreshed
// at once).
func (r *Registry) Refresh(ctx context.Context) error {
	rf := &r.refresh
	rf.mu.Lock()
	if f := rf.cur; f != nil {
		rf.mu.Unlock()
		select {
		case <-f.done:
			return f.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	rf.cur = f
	rf.mu.Unlock()
	_, f.err = r.catchUp(ctx)
	rf.mu.Lock()
	rf.cur = nil
	rf.mu.Unlock()
	close(f.done)
	return f.err
}

// Problems lists the log entries skipped and why, by sequence number;
// the skills a served view (Source, ChannelSource) leaves out, by the
// entry of their version; and the channel pointers a view does not
// follow (a version deleted, pending or rejected), by the promote's
// entry; as of the last view made of each channel.
func (r *Registry) Problems() map[uint64]string {
	r.mu.RLock()
	out := maps.Clone(r.st.problems)
	r.mu.RUnlock()
	r.views.problems(out)
	return out
}

// Len returns how many skills the registry holds.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.st.ids)
}
