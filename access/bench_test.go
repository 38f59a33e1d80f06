package access

import (
	"fmt"
	"strings"
	"testing"
)

// benchSkills are 100,000 skills over 10 sources; skill i is in source
// "src<i%10>" and named "team<i/10%10>-skill<i>".
var benchSkills = func() []skillRef {
	out := make([]skillRef, 100_000)
	for i := range out {
		out[i] = skillRef{fmt.Sprintf("src%d", i%10), fmt.Sprintf("team%d-skill%d", i/10%10, i)}
	}
	return out
}()

// BenchmarkFilter filters the 100,000 skills for one caller, reporting
// the cost per skill. Each policy but the first shows the caller 10%.
func BenchmarkFilter(b *testing.B) {
	var literal strings.Builder
	for i, s := range benchSkills {
		if i%10 == 3 {
			fmt.Fprintf(&literal, "%q,", s.skill)
		}
	}
	g := &Principal{Subject: "u", Groups: []string{"staff", "g"}, Scopes: []string{"openid"}}
	cases := []struct {
		name, policy string
		pr           *Principal
		want         int
	}{
		{"unrestricted", "default: deny\nrules: [{groups: [g], sources: [src3], skills: [\"*\"]}]", nil, 100_000},
		{"rule granting all", "default: deny\nrules: [{groups: [g], sources: [\"*\"], skills: [\"*\"]}]", g, 100_000},
		{"one source", "default: deny\nrules: [{groups: [g], sources: [src3], skills: [\"*\"]}]", g, 10_000},
		{"name prefix", "default: deny\nrules: [{groups: [g], sources: [\"*\"], skills: [\"team3-*\"]}]", g, 10_000},
		{"10000 literal names", "default: deny\nrules: [{groups: [g], sources: [\"*\"], skills: [" + literal.String() + "]}]", g, 10_000},
		{"source glob and name glob", "default: deny\nrules: [{groups: [g], sources: [\"src[3]\"], skills: [\"team?-skill*\"]}]", g, 10_000},
	}
	// Each case twice: Allows per skill, and one Source lookup per run
	// of skills of one source.
	perSkill := func(f Filter) (n int) {
		for _, s := range benchSkills {
			if f.Allows(s.source, s.skill) {
				n++
			}
		}
		return n
	}
	perSource := func(f Filter) (n int) {
		for src, skills := range bySource {
			sf := f.Source(src)
			for _, sk := range skills {
				if sf.Allows(sk) {
					n++
				}
			}
		}
		return n
	}
	for _, c := range cases {
		p := mustParse(b, c.policy)
		for _, m := range []struct {
			suffix string
			count  func(Filter) int
		}{{"", perSkill}, {"/by source", perSource}} {
			b.Run(c.name+m.suffix, func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					n = m.count(p.For(c.pr))
				}
				if n != c.want {
					b.Fatalf("%d visible; want %d", n, c.want)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(benchSkills)), "ns/skill")
			})
		}
	}
}

// bySource are benchSkills grouped by source.
var bySource = func() map[string][]string {
	m := map[string][]string{}
	for _, s := range benchSkills {
		m[s.source] = append(m[s.source], s.skill)
	}
	return m
}()

// BenchmarkFor measures resolving a principal to its view (cached), with
// a few groups and with a thousand.
func BenchmarkFor(b *testing.B) {
	var rules strings.Builder
	rules.WriteString("default: deny\nrules:\n")
	for i := range 50 {
		fmt.Fprintf(&rules, "  - {groups: [g%d], scopes: [s%d], sources: [src%d], skills: [\"*\"]}\n", i, i%3, i%10)
	}
	p := mustParse(b, rules.String())
	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprintf("other%d", i)
	}
	many[500] = "g7"
	for _, c := range []struct {
		name string
		pr   *Principal
	}{
		{"3 groups", &Principal{Subject: "u", Groups: []string{"x", "g1", "g7"}, Scopes: []string{"s1"}}},
		{"1000 groups", &Principal{Subject: "u", Groups: many, Scopes: []string{"s1"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p.For(c.pr).None() {
					b.Fatal("sees nothing")
				}
			}
		})
	}
}
