package store_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestHiddenTextServed: by default a skill with hidden text in SKILL.md
// is valid and served with its findings, and logged once per version of
// its document: a refresh that reuses the skill logs nothing.
func TestHiddenTextServed(t *testing.T) {
	m := fstest.MapFS{
		"calc/SKILL.md":  {Data: []byte(storetest.HiddenDoc), ModTime: time.Unix(1000, 0)},
		"clean/SKILL.md": {Data: []byte(storetest.Doc("clean", "Clean.")), ModTime: time.Unix(1000, 0)},
	}
	log, logs := testutil.TextLog()
	s := storetest.New(t, store.Options{Logger: log}, m)
	ctx := context.Background()
	sk, err := s.View(nil).Skill(ctx, "calc")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Finding{storetest.TagFinding}, sk.Findings, storetest.NoMessage); diff != "" || !sk.Valid() {
		t.Errorf("findings (-want +got):\n%s(valid: %v)", diff, sk.Valid())
	}
	if clean, _ := s.View(nil).Skill(ctx, "clean"); clean == nil || clean.Findings != nil {
		t.Errorf("clean skill: %+v", clean)
	}
	if d, err := s.View(nil).Document(ctx, "calc", nil); err != nil || d.Text != storetest.HiddenDoc {
		t.Errorf("document: %q, %v", d.Text, err)
	}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := storetest.HiddenLog(false, "calc", 1, storetest.TagFirst)
	if diff := cmp.Diff(want, logs.String()); diff != "" {
		t.Errorf("log after a refresh that reused the skill (-want +got):\n%s", diff)
	}
	m["calc/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.HiddenDoc + "\u202E\n"), ModTime: time.Unix(2000, 0)}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want += storetest.HiddenLog(false, "calc", 2, storetest.TagFirst)
	if diff := cmp.Diff(want, logs.String()); diff != "" {
		t.Errorf("log after the document changed (-want +got):\n%s", diff)
	}
}

// TestScanSkill: ScanSkill scans every text file of a skill, SKILL.md and
// the other Markdown files as Markdown (their HTML comments count) and the
// others as plain text, and the names of all its files, and leaves out
// the content of binary and hidden files and files over the size limit.
func TestScanSkill(t *testing.T) {
	s := storetest.New(t, store.Options{MaxFileSize: 100}, storetest.MapFS(
		"calc/SKILL.md="+storetest.Doc("calc", "Adds.")+"<!-- secret -->\n",
		"calc/a.md=<!-- Markdown too -->\u2066\n",
		"calc/a.txt=<!-- not Markdown -->\n",
		"calc/invoice\u202Efdp.exe=\x00",
		"calc/b/c.txt=\n\nx\u2060y",
		"calc/big.txt="+strings.Repeat("\u200B", 40),
		"calc/bin.dat=\x00\u200B",
		"calc/.env=\u200B",
	))
	ctx := context.Background()
	sk, err := s.View(nil).Skill(ctx, "calc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.View(nil).Scan(ctx, sk)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Finding{
		{Path: "SKILL.md", Line: 9, Column: 1, Kind: store.FindingHTMLComment, Text: "secret"},
		{Path: "a.md", Line: 1, Column: 1, Kind: store.FindingHTMLComment, Text: "Markdown too"},
		{Path: "a.md", Line: 1, Column: 22, Kind: store.FindingBidiControl, Text: "U+2066"},
		{Path: "b/c.txt", Line: 3, Column: 2, Kind: store.FindingZeroWidth, Text: "U+2060"},
		{Path: "invoice\u202Efdp.exe", Line: 0, Column: 8, Kind: store.FindingBidiControl, Text: "U+202E"},
	}
	if diff := cmp.Diff(want, got, storetest.NoMessage); diff != "" {
		t.Errorf("ScanSkill (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:1], sk.Findings, storetest.NoMessage); diff != "" {
		t.Errorf("discovery's findings: SKILL.md's only (-want +got):\n%s", diff)
	}
}

// publishedFS lists its skills with their frontmatter and findings, as a
// published snapshot does, and counts the documents it opens.
type publishedFS struct {
	*docCounter
	skills []store.PublishedSkill
}

func (p publishedFS) Published() []store.PublishedSkill { return p.skills }

// TestHiddenTextPublished: the findings a published snapshot lists, when
// it can be trusted with them (Scanned), are the skill's, known without
// reading a document; strict mode withholds the skill.
func TestHiddenTextPublished(t *testing.T) {
	m := storetest.MapFS("calc/SKILL.md="+storetest.Doc("calc", "Adds."), "calc/ref.md=x\u200By")
	info, err := fs.Stat(m, "calc/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := []store.Finding{{Path: "ref.md", Line: 1, Column: 2, Kind: store.FindingZeroWidth, Text: "U+200B", Message: "m."}}
	for _, strict := range []bool{false, true} {
		pub := publishedFS{&docCounter{FS: m}, []store.PublishedSkill{{Dir: "calc", DocPath: "SKILL.md",
			Frontmatter: "name: calc\ndescription: Adds.\n", Doc: info, Findings: listed, Scanned: true}}}
		log, logs := testutil.TextLog()
		s := storetest.New(t, store.Options{Strict: strict, Logger: log}, pub)
		ctx := context.Background()
		c, err := s.View(nil).Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n := pub.docs.Load(); n != 0 {
			t.Errorf("strict=%v: %d documents read to build the catalog", strict, n)
		}
		var got []store.Finding
		if p, ok := c.Problem("calc"); strict && ok {
			got = p.Findings
		} else if sk, err := s.View(nil).Skill(ctx, "calc"); !strict && err == nil {
			got = sk.Findings
			if all, err := s.View(nil).Scan(ctx, sk); err != nil || !cmp.Equal(all, listed) {
				t.Errorf("ScanSkill of a published skill: %v, %v", all, err)
			}
			if _, err := s.View(nil).ReadFile(ctx, "calc", "ref.md", &store.ReadOptions{Text: true}); err != nil {
				t.Error(err)
			}
		}
		if diff := cmp.Diff(listed, got); diff != "" {
			t.Errorf("strict=%v: findings (-want +got):\n%s", strict, diff)
		}
		if want := storetest.HiddenLog(strict, "calc", 1, "zero-width in ref.md at line 1, column 2 (U+200B)"); logs.String() != want {
			t.Errorf("strict=%v: log\n got %q\nwant %q", strict, logs, want)
		}
	}
}
