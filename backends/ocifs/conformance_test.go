package ocifs

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/backends/backendtest"
)

// TestConformance runs the backend suite against artifacts pushed to an
// in-process registry. Update pushes a new artifact under the same tag, as a
// publisher does; the old manifest and layer stay in the registry.
func TestConformance(t *testing.T) {
	r := newReg(t)
	n := 0
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			n++
			ref := fmt.Sprintf("oci://%s/suite/b%d:v1", r.host, n)
			push := func(files map[string][]byte) {
				src := fstest.MapFS{}
				var paths []string
				for p, b := range files {
					src[p] = &fstest.MapFile{Data: b}
					paths = append(paths, p)
				}
				slices.Sort(paths)
				if _, err := Push(context.Background(), ref, src, paths, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			push(files)
			return backendtest.Backend{FS: open(t, ref, Options{}), Update: push}
		},
		SkillsOnly: true,
		Upgrades:   backendtest.Upgrades{SnapshotFS: true, Refresher: true, RevisionFS: true},
	})
}
