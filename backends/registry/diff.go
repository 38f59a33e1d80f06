package registry

import (
	"context"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/skilldiff"
	"github.com/skillstore/skillstore/skillsapi"
)

var _ skillsapi.Reviewer = (*Registry)(nil)

// diffBytes is what one diff takes of the download budget (zipBudget)
// while it runs: the two sides of the file it compares and the text it
// builds, at most.
const diffBytes = 2*skilldiff.DefaultMaxFileBytes + skilldiff.DefaultMaxTotalBytes

// Diff compares two versions of skill id (IDs, or "latest"): from ""
// is the version before to (for the first version, every file is
// added); from may be to, or later than it. Only the files that differ are read, each checked against its
// digest; skilldiff.Compute's default bounds apply, and the diff holds
// its bytes of the registry's download budget while it runs. A skill
// the caller may not see, or a version it does not have, is a 404.
func (r *Registry) Diff(ctx context.Context, id, from, to string, visible func(string) bool) (*skilldiff.Diff, error) {
	var old, cur *version
	err := r.read(ctx, func() error {
		sk, v, err := r.version(id, to, visible)
		if err != nil {
			return err
		}
		cur, old = v, nil
		switch from {
		case "":
			if i, _ := sk.find(v.ID); i > 0 {
				old = sk.Versions[i-1]
			}
		default:
			if _, old, err = r.version(id, from, visible); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var sides [2]map[string]snapshot.File
	var lists [2][]skilldiff.File
	for s, v := range [2]*version{old, cur} {
		sides[s] = map[string]snapshot.File{}
		if v == nil {
			continue
		}
		for _, f := range v.Files {
			sides[s][f.Path] = f
			lists[s] = append(lists[s], skilldiff.File{Path: f.Path, SHA256: f.SHA256, Size: f.Size})
		}
	}
	if err := r.zips.take(ctx, diffBytes); err != nil {
		return nil, err
	}
	defer r.zips.give(diffBytes)
	read := func(ctx context.Context, side int, p string) ([]byte, error) {
		return r.readBlob(ctx, sides[side][p])
	}
	d, err := skilldiff.Compute(ctx, lists[skilldiff.SideFrom], lists[skilldiff.SideTo], read, skilldiff.Options{})
	if err != nil {
		return nil, err
	}
	d.To = cur.ID
	if old != nil {
		d.From = old.ID
	}
	return d, nil
}
