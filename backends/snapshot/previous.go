package snapshot

import "context"

// previous is the snapshot the pointer named when a publish began: the
// entries of files unchanged since are taken from it. It is kept in the
// compact form its manifest is read in (54 MB at 100,000 skills), each
// skill decoded when the publish comes to it; decoded whole, it took
// twice that.
type previous struct {
	id string
	c  *compact
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
	c, err := compactFrom(data)
	if err != nil || c.header.ID != p.Snapshot {
		return nil
	}
	return &previous{id: c.header.ID, c: c}
}

// files counts the previous snapshot's files (0 for none).
func (p *previous) files() int {
	n := 0
	if p != nil {
		for i := range p.c.records {
			n += p.c.record(i).files
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
	i, ok := p.c.skill(dir)
	if !ok || p.c.record(i).docPath != docPath {
		return -1
	}
	return i
}

// record returns skill i's record (i from skill, not -1).
func (p *previous) record(i int) record { return p.c.record(i) }

// file returns the entry of path rel in skill i (an index skill gave).
func (p *previous) file(i int, rel string) (File, bool) {
	if i < 0 {
		return File{}, false
	}
	return p.c.file(p.c.record(i), rel, true)
}
