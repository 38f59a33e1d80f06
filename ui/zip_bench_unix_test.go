//go:build unix

package ui_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// BenchmarkZipDownload downloads one skill's zip again and again, after a
// first download: 64 text files of 1 MiB (64 MiB), and 16 images of 1 MiB
// that do not compress. It reports the process's CPU time per download
// (cpu-ms/op), which the machine's load changes less than the wall time,
// and the first download's (first-cpu-ms), which builds the zip.
func BenchmarkZipDownload(b *testing.B) {
	for _, tc := range []struct {
		name  string
		files int
		ext   string
	}{{"text-64MiB", 64, ".md"}, {"images-16MiB", 16, ".png"}} {
		b.Run(tc.name, func(b *testing.B) {
			fsys := fstest.MapFS{"big/SKILL.md": {Data: []byte("---\nname: big\ndescription: A large skill.\n---\n# Big\n")}}
			r := rand.New(rand.NewPCG(1, 2))
			words := strings.Fields("the skill reads a file and writes its digest to the archive when asked by a caller who may see it")
			for i := range tc.files {
				var data []byte
				if tc.ext == ".png" {
					data = make([]byte, 1<<20)
					for j := range data {
						data[j] = byte(r.Uint32())
					}
				} else {
					var sb strings.Builder
					for sb.Len() < 1<<20-16 {
						sb.WriteString(words[r.IntN(len(words))])
						sb.WriteByte(" \n"[r.IntN(2)])
					}
					data = []byte(sb.String())
				}
				fsys[fmt.Sprintf("big/refs/f%02d%s", i, tc.ext)] = &fstest.MapFile{Data: data}
			}
			h := benchPages(b, fsys)
			download := func() {
				w := &discard{h: http.Header{}}
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/skills/big/zip", nil))
				if w.code != http.StatusOK || w.n < int64(tc.files)<<10 {
					b.Fatalf("zip: %d, %d bytes", w.code, w.n)
				}
				b.SetBytes(w.n)
			}
			first := cpuTime()
			download() // the first download, which builds what the others may reuse
			before := cpuTime()
			build := before - first
			b.ResetTimer()
			for range b.N {
				download()
			}
			b.StopTimer()
			b.ReportMetric(float64(build.Milliseconds()), "first-cpu-ms")
			b.ReportMetric(float64((cpuTime()-before).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// discard is a ResponseWriter that counts the body and keeps none of it.
type discard struct {
	h    http.Header
	code int
	n    int64
}

func (d *discard) Header() http.Header { return d.h }
func (d *discard) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discard) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	d.n += int64(len(p))
	return len(p), nil
}
