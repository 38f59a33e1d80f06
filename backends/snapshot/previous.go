package snapshot

import (
	"context"
	"slices"
	"strings"
)

// previous is the snapshot the pointer named when a publish began: the
// entries of files unchanged since are taken from it.
type previous struct {
	id     string  // its ID
	skills []Skill // sorted by Dir, each one's Files by Path
}

// readPrevious reads the manifest p names, checked against p's digest.
// It returns nil, and the publish reads every file, when there is none,
// or it cannot be read or decoded: a broken snapshot is replaced, not
// trusted.
func readPrevious(ctx context.Context, dst Bucket, p *Pointer) *previous {
	if p == nil || p.Snapshot == "" {
		return nil
	}
	data, err := dst.ReadObject(ctx, manifestKey(p.Snapshot, p.Version), maxManifestBytes)
	if err != nil || Sum(data) != p.SHA256 {
		return nil
	}
	m, err := DecodeManifest(data)
	if err != nil || m.ID != p.Snapshot {
		return nil
	}
	byDir := func(a, b Skill) int { return strings.Compare(a.Dir, b.Dir) }
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(m.Skills, byDir) {
		slices.SortFunc(m.Skills, byDir)
	}
	for i := range m.Skills {
		if fs := m.Skills[i].Files; !slices.IsSortedFunc(fs, byPath) {
			slices.SortFunc(fs, byPath)
		}
	}
	return &previous{id: m.ID, skills: m.Skills}
}

// files counts the previous snapshot's files (0 for none).
func (p *previous) files() int {
	n := 0
	if p != nil {
		for _, sk := range p.skills {
			n += len(sk.Files)
		}
	}
	return n
}

// skill returns the index of skill dir, if the previous snapshot has it
// with the same document (its entries, frontmatter and findings depend
// on which file is the document); -1 if not.
func (p *previous) skill(dir, docPath string) int {
	if p == nil {
		return -1
	}
	i, ok := slices.BinarySearchFunc(p.skills, dir, func(sk Skill, dir string) int { return strings.Compare(sk.Dir, dir) })
	if !ok || p.skills[i].DocPath != docPath {
		return -1
	}
	return i
}

// file returns the entry of path rel in skill i (an index skill gave).
func (p *previous) file(i int, rel string) (File, bool) {
	if i < 0 {
		return File{}, false
	}
	files := p.skills[i].Files
	j, ok := slices.BinarySearchFunc(files, rel, func(f File, rel string) int { return strings.Compare(f.Path, rel) })
	if !ok {
		return File{}, false
	}
	return files[j], true
}

// release lets skill i's entries go (what the new manifest took from
// them stays), once every file of the skill is done: skill and file
// must not be called after.
func (p *previous) release(i int) {
	if p != nil && i >= 0 {
		p.skills[i] = Skill{}
	}
}
