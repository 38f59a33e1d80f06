// Package snapshottest makes published snapshots of generated skills, for
// benchmarks and tests at fleet scale that should not pay for reading
// thousands of files from disk.
package snapshottest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
)

// Fleet returns, by key, every object of a published folder holding n
// generated skills (skill-000000…) of three files each (SKILL.md,
// references/guide.md, scripts/run.sh): the blobs, the manifest id
// (published at published) and the pointer, as Publish lays them out.
func Fleet(n int, id string, published time.Time) map[string][]byte {
	objects := make(map[string][]byte, 3*n+2)
	m := snapshot.Manifest{Version: snapshot.Version, ID: id, Published: published, Sequence: 1}
	for i := range n {
		name := fmt.Sprintf("skill-%06d", i)
		fm := fmt.Sprintf("name: %s\ndescription: Generated skill %d, which shows what a large catalog costs to serve.\n", name, i)
		sk := snapshot.Skill{Dir: name, DocPath: "SKILL.md", Frontmatter: fm}
		for _, f := range []struct{ path, body string }{
			{"SKILL.md", "---\n" + fm + "---\n# " + name + "\n"},
			{"references/guide.md", "guide of " + name},
			{"scripts/run.sh", "#!/bin/sh\necho " + name + "\n"},
		} {
			sum := snapshot.Sum([]byte(f.body))
			objects[snapshot.BlobKey(sum)] = []byte(f.body)
			sk.Files = append(sk.Files, snapshot.File{Path: f.path, Size: int64(len(f.body)), SHA256: sum, ModTime: published})
		}
		m.Skills = append(m.Skills, sk)
	}
	manifest, err := m.Encode()
	if err != nil {
		panic(err) // a Manifest of clean names always encodes
	}
	pointer, err := json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: id, SHA256: snapshot.Sum(manifest), Published: published, Sequence: m.Sequence})
	if err != nil {
		panic(err)
	}
	objects[snapshot.ManifestKey(id)] = manifest
	objects[snapshot.PointerKey] = pointer
	return objects
}
