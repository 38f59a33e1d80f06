package ui

import (
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// BenchmarkRender renders, as a skill page does on a cache miss, each of
// fixture.CostlyMarkdown's documents: for each class of input goldmark is
// slow on, the largest the bounds let be rendered (its time is the worst
// a document of that class costs) and one just past them (shown as plain
// text: the bounds' check and the escaping). cpu-ms/op is the CPU time
// the process used a render (GC included), which a shared machine's load
// moves less than the wall time.
func BenchmarkRender(b *testing.B) {
	md := newMarkdown(false)
	base := &linkBase{skill: "x", dir: ".", files: map[string]bool{}}
	for _, d := range fixture.CostlyMarkdown() {
		b.Run(d.Name, func(b *testing.B) {
			b.SetBytes(int64(len(d.Text)))
			cpu := testutil.CPUTime()
			for b.Loop() {
				renderMarkdown(md, d.Text, base)
			}
			b.ReportMetric(float64((testutil.CPUTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
