// Command blevecmp compares package search with bleve v2 on the same
// generated catalog (internal/skillgen: Catalog(n) plus the built-in
// examples) and the same paraphrased queries, in one run, and prints a
// table: hits@1, hits@5, index build time, heap per skill after GC, search
// latency p50/p95 over the query set, and the stripped size of a minimal
// program that indexes and searches with each.
//
// It is a module of its own so that bleve never enters the main module's
// go.mod. Run it from this folder:
//
//	go run . -n 10000
//
// bleve is set up as an in-memory index (bleve.NewMemOnly) with the
// English analyzer on four text fields (name, description, headings,
// body), neither stored nor with term vectors nor in the _all field; a
// query is a disjunction of one match query per field, boosted 4, 2.5, 1.5
// and 1 as package search weighs its fields.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/search"
)

// engine is one search library under test.
type engine interface {
	name() string
	build(docs []search.Doc) error
	search(q string, limit int) ([]string, error)
}

type ours struct{ x *search.Index }

func (e *ours) name() string { return "search (ours)" }

func (e *ours) build(docs []search.Doc) error {
	e.x = search.New()
	for _, d := range docs {
		e.x.Put(d)
	}
	return nil
}

func (e *ours) search(q string, limit int) ([]string, error) {
	var ids []string
	for _, h := range e.x.Search(q, limit) {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

var fieldNames = [4]string{"name", "description", "headings", "body"}
var boosts = [4]float64{4, 2.5, 1.5, 1}

type bleveEngine struct{ idx bleve.Index }

// batchSize is the number of documents per bleve batch.
var batchSize = 1000

func (e *bleveEngine) name() string {
	return "bleve v2 (" + bleve.Config.DefaultIndexType + ", in memory)"
}

func (e *bleveEngine) build(docs []search.Doc) error {
	dm := bleve.NewDocumentMapping()
	for _, f := range fieldNames {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		dm.AddFieldMappingsAt(f, fm)
	}
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = en.AnalyzerName
	im.StoreDynamic = false
	im.IndexDynamic = false
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		return err
	}
	e.idx = idx
	b := idx.NewBatch()
	for _, d := range docs {
		doc := map[string]any{}
		for i, f := range fieldNames {
			doc[f] = d.Fields[i]
		}
		if err := b.Index(d.ID, doc); err != nil {
			return err
		}
		if b.Size() == batchSize {
			if err := idx.Batch(b); err != nil {
				return err
			}
			b.Reset()
		}
	}
	return idx.Batch(b)
}

func (e *bleveEngine) search(q string, limit int) ([]string, error) {
	var qs []query.Query
	for i, f := range fieldNames {
		m := bleve.NewMatchQuery(q)
		m.SetField(f)
		m.SetBoost(boosts[i])
		qs = append(qs, m)
	}
	res, err := e.idx.Search(bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), limit, 0, false))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids, nil
}

type result struct {
	engine       string
	at1, at5     float64
	build        time.Duration
	heapPerSkill float64
	p50, p95     time.Duration
	binary       int64
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// measure builds e over docs and runs every query passes times (after one
// unmeasured pass).
func measure(e engine, docs []search.Doc, queries []skillgen.Query, passes int, settle time.Duration) (result, error) {
	r := result{engine: e.name()}
	// The index gets its own copies of the text, made after the first
	// reading of the heap and dropped before the second, so that the text
	// counts only as far as the index keeps it.
	before := heap()
	own := make([]search.Doc, len(docs))
	for i, d := range docs {
		own[i].ID = strings.Clone(d.ID)
		for f := range d.Fields {
			own[i].Fields[f] = strings.Clone(d.Fields[f])
		}
	}
	start := time.Now()
	if err := e.build(own); err != nil {
		return r, err
	}
	r.build = time.Since(start)
	own = nil
	time.Sleep(settle) // let background merges (bleve's scorch) finish
	after := heap()
	r.heapPerSkill = (float64(after) - float64(before)) / float64(len(docs))

	at1, at5 := 0, 0
	var lat []time.Duration
	for pass := range passes + 1 {
		for _, q := range queries {
			t0 := time.Now()
			ids, err := e.search(q.Text, 5)
			d := time.Since(t0)
			if err != nil {
				return r, err
			}
			if pass == 0 {
				if len(ids) > 0 && slices.Contains(q.Want, ids[0]) {
					at1++
				}
				if slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(q.Want, id) }) {
					at5++
				}
				continue
			}
			lat = append(lat, d)
		}
	}
	slices.Sort(lat)
	r.at1 = float64(at1) / float64(len(queries))
	r.at5 = float64(at5) / float64(len(queries))
	r.p50 = lat[len(lat)/2]
	r.p95 = lat[len(lat)*95/100]
	return r, nil
}

// binarySize builds the minimal program in dir, stripped, and returns its
// size in bytes.
func binarySize(dir string) (int64, error) {
	out := filepath.Join(os.TempDir(), "blevecmp-"+filepath.Base(dir))
	defer os.Remove(out)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("go build in %s: %w", dir, err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func main() {
	n := flag.Int("n", 10_000, "generated skills (the built-in examples are added)")
	passes := flag.Int("passes", 5, "measured passes over the query set, for latency")
	sizes := flag.Bool("sizes", true, "build ./minimal/ours and ./minimal/bleve and report their stripped sizes")
	only := flag.String("only", "", "run only this engine: ours or bleve")
	flag.IntVar(&batchSize, "batch", batchSize, "documents per bleve batch")
	settle := flag.Duration("settle", 2*time.Second, "wait after building before measuring the heap")
	flag.Parse()

	ex, err := skillgen.ReadTree(backends.Examples())
	if err != nil {
		log.Fatal(err)
	}
	t0 := time.Now()
	skills := skillgen.WithExamples(skillgen.Catalog(*n), ex)
	queries := skillgen.Queries(skills)
	docs := make([]search.Doc, len(skills))
	for i, s := range skills {
		docs[i] = search.SkillDoc(s.Name, s.Name, s.Description, s.Body)
	}
	skills = nil
	fmt.Printf("%s %s/%s, %d CPUs; %d skills (%d generated + %d built-in), %d queries; generated in %v\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), len(docs), len(docs)-len(ex), len(ex), len(queries), time.Since(t0).Round(time.Millisecond))

	engines := []struct {
		key, dir string
		e        engine
	}{{"ours", "minimal/ours", &ours{}}, {"bleve", "minimal/bleve", &bleveEngine{}}}
	var results []result
	for i := range engines {
		if *only != "" && *only != engines[i].key {
			continue
		}
		r, err := measure(engines[i].e, docs, queries, *passes, *settle)
		if err != nil {
			log.Fatal(err)
		}
		engines[i].e = nil // let the index go before the next one is measured
		if *sizes {
			if r.binary, err = binarySize(engines[i].dir); err != nil {
				log.Fatal(err)
			}
		}
		results = append(results, r)
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "engine\thits@1\thits@5\tbuild\theap/skill\tp50\tp95\tbinary (-s -w)\t")
	for _, r := range results {
		bin := "-"
		if r.binary > 0 {
			bin = fmt.Sprintf("%.2f MiB", float64(r.binary)/(1<<20))
		}
		fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%v\t%.0f B\t%v\t%v\t%s\t\n", r.engine, r.at1, r.at5,
			r.build.Round(time.Millisecond), r.heapPerSkill, r.p50.Round(time.Microsecond), r.p95.Round(time.Microsecond), bin)
	}
	w.Flush()
	runtime.KeepAlive(docs)
}
