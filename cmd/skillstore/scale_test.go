package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/backends/snapshot/snapshottest"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// publishedBucket writes n published skills of three files each to an
// in-memory bucket, as publish lays them out (blobs, a manifest, the
// pointer), without the cost of reading n*3 files from disk.
func publishedBucket(tb testing.TB, n int) *blob.Bucket {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	for key, data := range snapshottest.Fleet(n, "20261122T000000.000000000Z-scale", time.Now().UTC()) {
		if err := b.WriteAll(ctx, key, data, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// BenchmarkPublishedCatalog measures a replica over a published bucket of
// 10k and 100k skills, counting the requests it makes: a cold catalog, a
// walk of every skill's files with their digests (what skills/list
// needs), and a refresh that finds nothing new; and the heap the catalog
// holds per skill once its search index is complete.
func BenchmarkPublishedCatalog(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			bucket := publishedBucket(b, n)
			ctx := context.Background()
			quiet := quietLogger()
			var cold, walk, refresh blobfs.Requests
			var perSkill float64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				runtime.GC()
				runtime.GC() // what a finalizer of an earlier run's store held
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				bfs := blobfs.NewBucketFS(bucket, blobfs.BucketOptions{Logger: quiet})
				pub, err := snapshot.Open(ctx, bfs, snapshot.Options{Logger: quiet})
				if err != nil {
					b.Fatal(err)
				}
				s, _ := store.New([]store.Source{{FS: pub}}, store.Options{Logger: quiet})
				list, err := s.View(nil).List(ctx)
				if err != nil || len(list) != n {
					b.Fatalf("%d skills, %v", len(list), err)
				}
				b.StopTimer()
				cold = bfs.Requests()
				if _, err := s.View(nil).Search(ctx, "catalog", 1); err != nil { // waits for the index
					b.Fatal(err)
				}
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				perSkill = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				for _, sk := range list {
					files, err := s.View(nil).Files(ctx, sk.Name, nil)
					if err != nil || len(files) != 3 || files[0].SHA256 == "" {
						b.Fatalf("files of %s: %+v %v", sk.Name, files, err)
					}
				}
				walk = bfs.Requests()
				s.Refresh(ctx) // learns the pointer's tag
				first := bfs.Requests()
				s.Refresh(ctx)
				last := bfs.Requests()
				refresh = blobfs.Requests{List: last.List - first.List, Get: last.Get - first.Get, Head: last.Head - first.Head}
				runtime.KeepAlive(s)
				b.StartTimer()
			}
			b.ReportMetric(float64(cold.List+cold.Get+cold.Head), "cold-requests")
			b.ReportMetric(float64(walk.List+walk.Get+walk.Head-cold.List-cold.Get-cold.Head), "walk-requests")
			b.ReportMetric(float64(refresh.List+refresh.Get+refresh.Head), "refresh-requests")
			b.ReportMetric(perSkill, "heap-B/skill")
		})
	}
}

// BenchmarkPublish publishes 10k skills of three files each from disk to
// an in-memory bucket: the first publish uploads every file, the second
// (nothing changed) reads every file and uploads none.
func BenchmarkPublish(b *testing.B) {
	const n = 10_000
	files := map[string][]byte{}
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		files[name+"/SKILL.md"] = []byte(fmt.Sprintf("---\nname: %s\ndescription: Generated skill %d.\n---\n# %s\n", name, i, name))
		files[name+"/references/guide.md"] = []byte("guide of " + name)
		files[name+"/scripts/run.sh"] = []byte("#!/bin/sh\necho " + name + "\n")
	}
	dir := writeFixture(b, files)
	local, err := backends.OpenLocal(filepath.Clean(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	ctx := context.Background()
	skills, _, err := publishable(ctx, local, false, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	for _, again := range []bool{false, true} {
		b.Run(fmt.Sprintf("unchanged=%v", again), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				bucket := memblob.OpenBucket(nil)
				if again {
					snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(bucket), snapshot.PublishOptions{Keep: 5})
				}
				b.StartTimer()
				r, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(bucket), snapshot.PublishOptions{Keep: 5})
				if err != nil || r.Files != 3*n {
					b.Fatalf("%+v %v", r, err)
				}
			}
			b.ReportMetric(float64(3*n*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// BenchmarkSignedSwitch measures a replica moving to a new snapshot of
// 100k skills (the pointer, then the manifest it names) without and with
// a signer policy: the policy adds one request (the manifest's signature)
// and the signature check over the manifest's bytes.
func BenchmarkSignedSwitch(b *testing.B) {
	const n = 100_000
	bucket := publishedBucket(b, n)
	ctx := context.Background()
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		b.Fatal(err)
	}
	var p snapshot.Pointer
	pb, _ := bucket.ReadAll(ctx, snapshot.PointerKey)
	json.Unmarshal(pb, &p)
	mb, _ := bucket.ReadAll(ctx, snapshot.ManifestKey(p.Snapshot))
	sig, err := sshsig.SignSHA256(signer, sha256.Sum256(mb), snapshot.SignatureNamespace) // as publish signs
	if err != nil {
		b.Fatal(err)
	}
	bucket.WriteAll(ctx, snapshot.SignatureKey(p.Snapshot), sig, nil)
	trust, err := sshsig.ParseAllowedSigners(append([]byte("publisher "), ssh.MarshalAuthorizedKey(signer.PublicKey())...))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("manifest of %d skills: %d bytes", n, len(mb))
	quiet := quietLogger()
	for _, tc := range []struct {
		name  string
		trust func() *sshsig.AllowedSigners
	}{{"policy=none", nil}, {"policy=signed", func() *sshsig.AllowedSigners { return trust }}} {
		b.Run(tc.name, func(b *testing.B) {
			var reqs blobfs.Requests
			for range b.N {
				bfs := blobfs.NewBucketFS(bucket, blobfs.BucketOptions{Logger: quiet})
				pub, err := snapshot.Open(ctx, bfs, snapshot.Options{Logger: quiet, Trust: tc.trust})
				if err != nil || pub.Current() == nil {
					b.Fatalf("open: %v", err)
				}
				reqs = bfs.Requests()
			}
			b.ReportMetric(float64(reqs.List+reqs.Get+reqs.Head), "requests")
		})
	}
}
