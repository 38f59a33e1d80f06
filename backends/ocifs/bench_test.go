package ocifs

import (
	"archive/tar"
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/store"
)

// fleet is skillgen's first n realistic skills, with a reference file
// each where it has one, as a MapFS and its paths.
func fleet(n int) (fstest.MapFS, []string) {
	m := fstest.MapFS{}
	var paths []string
	for _, sk := range skillgen.Catalog(n) {
		doc := "---\nname: " + sk.Name + "\ndescription: " + fmt.Sprintf("%q", sk.Description) + "\n---\n" + sk.Body
		p := sk.Name + "/SKILL.md"
		m[p] = &fstest.MapFile{Data: []byte(doc)}
		paths = append(paths, p)
	}
	return m, paths
}

// BenchmarkOCI measures, against the in-process registry, for 1,000
// realistic skills: a push (MB/s of the files pushed), a cold catalog
// (open, resolve, fetch the manifest and the layer, unpack, build the
// store's catalog) and an idle refresh, each with the registry requests
// it makes; and a fetch of a layer padded with 64 MiB, for what it
// allocates.
func BenchmarkOCI(b *testing.B) {
	r := newReg(b)
	src, paths := fleet(1000)
	var size int64
	for _, p := range paths {
		size += int64(len(src[p].Data))
	}
	ctx := context.Background()
	ref := "oci://" + r.host + "/bench/skills:v1"
	b.Run("push", func(b *testing.B) {
		b.SetBytes(size)
		before := r.requests.Load()
		for i := 0; b.Loop(); i++ {
			if _, err := Push(ctx, ref, src, paths, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(r.requests.Load()-before)/float64(b.N), "requests/op")
	})
	b.Run("cold-catalog", func(b *testing.B) {
		before := r.requests.Load()
		for b.Loop() {
			f, err := Open(ref, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s, err := store.New([]store.Source{{Label: "oci", FS: f}}, store.Options{NoSearch: true})
			if err != nil {
				b.Fatal(err)
			}
			list, err := s.View(nil).List(ctx)
			if err != nil || len(list) != 1000 {
				b.Fatalf("%d skills, %v", len(list), err)
			}
		}
		b.ReportMetric(float64(r.requests.Load()-before)/float64(b.N), "requests/op")
	})
	// A layer of one skill padded with 64 MiB of zeros after its tar's
	// end (sent as it is, not copied by the registry): what a fetch
	// allocates (B/op) is what it could hold at its peak.
	small := tarLayer(b, false, []tar.Header{{Name: "a/SKILL.md"}}, map[string]string{"a/SKILL.md": skillDoc("a")})
	padded := append(small, make([]byte, 64<<20)...)
	r.sendBlobs(map[string][]byte{digest.FromBytes(padded).String(): padded})
	pad := pushManifest(b, r, "bench/padded", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayer, padded})
	b.Run("padded-layer", func(b *testing.B) {
		b.SetBytes(int64(len(padded)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := open(b, pad, Options{}).Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("idle-refresh", func(b *testing.B) {
		f, _ := Open(ref, Options{})
		if _, err := f.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
		before := r.requests.Load()
		for b.Loop() {
			if err := f.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(r.requests.Load()-before)/float64(b.N), "requests/op")
	})
}
