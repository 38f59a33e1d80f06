package snapshot_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
)

// benchSkills writes n skills as the issue measured them: a 4 KB
// SKILL.md with headings and two small files each, and returns them as
// Publish takes them.
func benchSkills(b *testing.B, n int) (string, *backends.LocalFS, []snapshot.SkillFiles) {
	dir := b.TempDir()
	var skills []snapshot.SkillFiles
	for i := range n {
		name := fmt.Sprintf("skill-%06d", i)
		files := map[string]string{
			"SKILL.md":            benchDoc(name, 0),
			"references/guide.md": strings.Repeat("Guide line of "+name+".\n", 30),
			"scripts/run.sh":      "#!/bin/sh\necho " + name + "\n",
		}
		sk := snapshot.SkillFiles{Dir: name, DocPath: "SKILL.md"}
		for rel, data := range files {
			p := filepath.Join(dir, name, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
			sk.Files = append(sk.Files, rel)
		}
		skills = append(skills, sk)
	}
	local, err := backends.OpenLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { local.Close() })
	return dir, local, skills
}

// benchDoc is a 4 KB skill document; edit makes a different one.
func benchDoc(name string, edit int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "---\nname: %s\ndescription: Generated skill %s for publishing benchmarks (edit %d).\n---\n# %s\n\n", name, name, edit, name)
	for i := 0; s.Len() < 4000; i++ {
		fmt.Fprintf(&s, "## Step %d\n\nDo the thing number %d of %s carefully.\n\n", i, i, name)
	}
	return s.String()
}

// peakProfile names the file where peakHeap writes a heap profile taken
// when the heap was near its peak (heap profiles describe the heap as of
// the last GC, so it is approximate): what dominates the peak.
var peakProfile = flag.String("publish.peakprofile", "", "write a heap profile taken near the peak of BenchmarkPublishScale's heap to `FILE`")

// peakHeap samples the heap's live objects every millisecond until stop
// is called, which returns the highest sample (and writes
// -publish.peakprofile).
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var profile bytes.Buffer
		var profiled uint64
		defer func() {
			if *peakProfile != "" && profile.Len() > 0 {
				os.WriteFile(*peakProfile, profile.Bytes(), 0o644)
			}
		}()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			if *peakProfile != "" && peak > profiled+profiled/10 {
				profiled = peak
				profile.Reset()
				pprof.Lookup("heap").WriteTo(&profile, 0)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() uint64 {
		once.Do(func() { close(done); <-finished })
		return peak
	}
}

// BenchmarkPublishScale publishes 10,000 skills (30,000 files, 4 KB
// documents) from disk to an in-memory bucket and to a file:// folder,
// with one transfer and with the default: a first publish, a republish
// with nothing changed and one with 10 documents changed. It reports
// files/s and the peak of the heap's live objects during the publish,
// above the heap after a GC before it (an in-memory bucket's content is
// on the heap too).
func BenchmarkPublishScale(b *testing.B) {
	const n = 10_000
	dir, local, skills := benchSkills(b, n)
	edits := 0
	for _, dest := range []string{"mem", "file"} {
		for _, transfers := range []int{1, snapshot.DefaultTransfers} {
			for _, step := range []string{"first", "unchanged", "changed=10"} {
				b.Run(fmt.Sprintf("dest=%s/transfers=%d/%s", dest, transfers, step), func(b *testing.B) {
					var peak uint64
					for range b.N {
						edits++
						peak = max(peak, publishOnce(b, dir, local, skills, dest, transfers, step, edits))
					}
					b.ReportMetric(float64(3*n*b.N)/b.Elapsed().Seconds(), "files/s")
					b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				})
			}
		}
	}
}

// publishOnce runs one publish of BenchmarkPublishScale, timed, after
// the untimed ones step needs, and returns the peak of its heap.
func publishOnce(b *testing.B, dir string, local *backends.LocalFS, skills []snapshot.SkillFiles, dest string, transfers int, step string, edit int) uint64 {
	b.StopTimer()
	defer b.StartTimer()
	bucket := benchBucket(b, dest)
	defer bucket.Close()
	publish := func() {
		r, err := snapshot.Publish(context.Background(), local, skills, blobfs.NewPublishBucket(bucket), snapshot.PublishOptions{Keep: 5, MaxFileSize: 1 << 20, Transfers: transfers})
		if err != nil || r.Files != 3*len(skills) {
			b.Fatalf("%+v %v", r, err)
		}
	}
	if step != "first" {
		publish()
	}
	if step == "changed=10" {
		for i := range 10 {
			name := skills[i*len(skills)/10].Dir
			if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(benchDoc(name, edit)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := peakHeap()
	b.StartTimer()
	publish()
	b.StopTimer()
	peak := stop()
	return peak - min(peak, before.HeapAlloc)
}

// benchBucket is an empty bucket: in memory, or a file:// folder opened
// as the command opens one.
func benchBucket(b *testing.B, dest string) *blob.Bucket {
	if dest == "mem" {
		return memblob.OpenBucket(nil)
	}
	bucket, _, err := blobfs.OpenBucket(context.Background(), "file://"+b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return bucket
}
