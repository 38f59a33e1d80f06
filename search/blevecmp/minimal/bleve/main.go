// Command bleve is the smallest program that indexes and searches skills
// with bleve (in memory, English analyzer, four boosted fields), to
// measure what it adds to a binary.
package main

import (
	"fmt"
	"log"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"
)

var fields = []string{"name", "description", "headings", "body"}
var boosts = []float64{4, 2.5, 1.5, 1}

func main() {
	dm := bleve.NewDocumentMapping()
	for _, f := range fields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		dm.AddFieldMappingsAt(f, fm)
	}
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		log.Fatal(err)
	}
	docs := map[string][4]string{
		"pdf-forms":   {"pdf-forms", "Fill and flatten PDF forms.", "Filling forms", "Use pypdf to fill fields."},
		"code-review": {"code-review", "Review a pull request.", "Checklist", "Look for SQL injection."},
	}
	for id, d := range docs {
		if err := idx.Index(id, map[string]any{"name": d[0], "description": d[1], "headings": d[2], "body": d[3]}); err != nil {
			log.Fatal(err)
		}
	}
	var qs []query.Query
	for i, f := range fields {
		m := bleve.NewMatchQuery("fill a pdf form")
		m.SetField(f)
		m.SetBoost(boosts[i])
		qs = append(qs, m)
	}
	res, err := idx.Search(bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), 5, 0, false))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Println(h.ID, h.Score)
	}
}
