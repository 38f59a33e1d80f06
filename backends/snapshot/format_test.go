package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/hidden"
)

var (
	sumA = Sum([]byte("a"))
	sumB = Sum([]byte("b"))
)

// sample is a manifest using every field of the format.
func sample() *Manifest {
	when := time.Date(2026, 11, 25, 1, 2, 3, 4, time.UTC)
	return &Manifest{Version: 2, ID: "20261125T010203.000000004Z-0123456789ab", Published: when, Sequence: 7, Skills: []Skill{
		{Dir: "alpha", DocPath: "SKILL.md", Frontmatter: "name: alpha\ndescription: A.\n", Headings: "Alpha\nUse\n",
			Files: []File{
				{Path: "SKILL.md", Size: 1, ModTime: when, SHA256: sumA},
				{Path: "refs/deep/x.md", Size: 1, SHA256: sumB, Served: sumA, ServedSize: 1}, // no time
			},
			Findings: []hidden.Finding{{Path: "refs/deep/x.md", Line: 2, Column: 3, Kind: hidden.ZeroWidth, Text: "U+200B"}}},
		{Dir: "beta", DocPath: "skill.md", Frontmatter: "name: beta\n", Files: []File{{Path: "skill.md", Size: 0, ModTime: time.Unix(0, 0).UTC(), SHA256: sumA}}},
		{Dir: "gamma", DocPath: "SKILL.md"}, // no files: its document is missing
	}}
}

func TestFormatRoundTrip(t *testing.T) {
	m := sample()
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte(magic2)) {
		t.Fatalf("format 2 starts with %q", data[:min(len(data), 30)])
	}
	got, err := DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	// Encoding sorts: skills and files in any order give the same bytes.
	shuffled := sample()
	shuffled.Skills[0], shuffled.Skills[2] = shuffled.Skills[2], shuffled.Skills[0]
	fs := shuffled.Skills[2].Files
	fs[0], fs[1] = fs[1], fs[0]
	again, err := shuffled.Encode()
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("a shuffled manifest encodes differently (%v)", err)
	}
	// Version 1 is JSON, and decodes to the same manifest.
	v1 := sample()
	v1.Version = 1
	j, err := v1.Encode()
	if err != nil || j[0] != '{' {
		t.Fatalf("version 1: %.20q %v", j, err)
	}
	got, err = DecodeManifest(j)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v1, got); diff != "" {
		t.Errorf("decoded version 1 (-want +got):\n%s", diff)
	}
}

// TestRecordsChunks encodes a manifest whose records fill several chunks,
// one of them larger than a chunk: the chunks joined decode to it, and
// no record is split between two.
func TestRecordsChunks(t *testing.T) {
	defer func(n int) { recordChunk = n }(recordChunk)
	recordChunk = 1000
	m := &Manifest{Version: 2, ID: "20261125T010203.000000004Z-0123456789ab", Published: time.Date(2026, 11, 25, 1, 2, 3, 4, time.UTC)}
	for i := range 50 {
		fm := fmt.Sprintf("name: s%02d\ndescription: %s\n", i, strings.Repeat("x", 10*i))
		if i == 20 {
			fm = "description: " + strings.Repeat("y", 3*recordChunk) + "\n" // larger than a chunk
		}
		m.Skills = append(m.Skills, Skill{Dir: fmt.Sprintf("s%02d", i), DocPath: "SKILL.md", Frontmatter: fm,
			Files: []File{{Path: "SKILL.md", Size: int64(i), SHA256: sumA}}})
	}
	var r records
	for i := range m.Skills {
		if err := r.add(&m.Skills[i]); err != nil {
			t.Fatal(err)
		}
	}
	pieces, err := r.pieces(header2{Version: 2, ID: m.ID, Published: m.Published, Skills: r.n})
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) < 10 {
		t.Fatalf("%d pieces: the records did not fill several chunks", len(pieces))
	}
	for _, c := range pieces[1:] { // each chunk holds whole records
		d := &decoder{b: c}
		for d.off < len(c) && d.err == nil {
			d.off = d.readRecord().end
		}
		if d.err != nil || d.off != len(c) {
			t.Fatalf("a chunk of %d bytes does not hold whole records: %v at %d", len(c), d.err, d.off)
		}
	}
	got, err := DecodeManifest(bytes.Join(pieces, nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// raw builds a format 2 manifest from records as given, unsorted and
// unchecked, with a header claiming skills skills.
func raw(t *testing.T, skills int, edit func(*Manifest)) []byte {
	t.Helper()
	m := sample()
	edit(m)
	data, err := encode2(header2{Version: 2, ID: m.ID, Published: m.Published, Skills: skills}, m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFormatHostile: every malformed manifest is refused with a reason,
// never served in part, and never panics or allocates by a claimed length.
func TestFormatHostile(t *testing.T) {
	good, err := sample().Encode()
	if err != nil {
		t.Fatal(err)
	}
	header := func(h string) []byte {
		b := []byte(magic2)
		b = binary.AppendUvarint(b, uint64(len(h)))
		return append(b, h...)
	}
	huge := append([]byte(magic2), binary.AppendUvarint(nil, 1<<62)...)
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "not a manifest", nil},
		{"another file", "not a manifest", []byte("PK\x03\x04")},
		{"JSON of version 3", "another format version", []byte(`{"version":3}`)},
		{"header of version 3", "another format version", header(`{"version":3,"skills":0}`)},
		{"format 3", "another format version", []byte("skillstore snapshot 3\n\x02{}")},
		{"header not JSON", "header", header(`{`)},
		{"header length past the end", "truncated or malformed", huge},
		{"fewer skills than the header says", "lists 3 skills; its header says 4", raw(t, 4, func(*Manifest) {})},
		{"more skills than the header says", "lists 3 skills; its header says 2", raw(t, 2, func(*Manifest) {})},
		{"trailing bytes", "truncated or malformed", append(bytes.Clone(good), 0x05, 'x')},
		{"skills out of order", "out of order or twice", raw(t, 3, func(m *Manifest) { m.Skills[0], m.Skills[1] = m.Skills[1], m.Skills[0] })},
		{"a skill twice", "out of order or twice", raw(t, 3, func(m *Manifest) { m.Skills[1].Dir = "alpha" })},
		{"a hidden skill folder", "bad skill folder", raw(t, 3, func(m *Manifest) { m.Skills[0].Dir = ".git" })},
		{"a nested skill folder", "bad skill folder", raw(t, 3, func(m *Manifest) { m.Skills[0].Dir = "a/b" })},
		{"a document outside its folder", "bad document", raw(t, 3, func(m *Manifest) { m.Skills[0].DocPath = "../SKILL.md" })},
		{"a file outside its folder", "bad file path", raw(t, 3, func(m *Manifest) { m.Skills[0].Files[1].Path = "../../etc/passwd" })},
		{"an absolute file", "bad file path", raw(t, 3, func(m *Manifest) { m.Skills[0].Files[1].Path = "/etc/passwd" })},
		{"files out of order", "out of order or twice", raw(t, 3, func(m *Manifest) { f := m.Skills[0].Files; f[0], f[1] = f[1], f[0] })},
		{"a file twice", "out of order or twice", raw(t, 3, func(m *Manifest) { m.Skills[0].Files[1].Path = "SKILL.md" })},
		{"a file and a folder of one name", "both a file and a folder", raw(t, 3, func(m *Manifest) {
			m.Skills[0].Files = append(m.Skills[0].Files, File{Path: "refs/deep/x.md/y", SHA256: sumA})
		})},
		{"hidden text in a file not listed", "does not list", raw(t, 3, func(m *Manifest) { m.Skills[0].Findings[0].Path = "gone.md" })},
		{"unreadable findings", "unreadable findings", func() []byte {
			// A findings string that is not JSON, in place of the real one.
			data := raw(t, 3, func(*Manifest) {})
			return bytes.Replace(data, []byte(`[{"file"`), []byte(`[[[[[[[[`), 1)
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeManifest(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want one saying %q", err, tc.want)
			}
		})
	}
	// Cut anywhere, a manifest is refused (the header's count, or the
	// framing, catches it).
	for n := range len(good) {
		if _, err := DecodeManifest(good[:n]); err == nil {
			t.Fatalf("a manifest cut to %d of %d bytes was accepted", n, len(good))
		}
	}
	// An unknown flag bit is refused: a later format's field is not skipped.
	flagged := bytes.Clone(good)
	i := bytes.Index(flagged, []byte("SKILL.md\x01")) + len("SKILL.md\x01") // alpha's document: path, size 1, then flags
	flagged[i] |= 0x80
	if _, err := DecodeManifest(flagged); err == nil {
		t.Error("a file with an unknown flag was accepted")
	}
}

func FuzzDecodeManifest(f *testing.F) {
	good, _ := sample().Encode()
	f.Add(good)
	f.Add([]byte(magic2))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(data)
		if err != nil {
			return
		}
		// Whatever decodes encodes again, and decodes to the same.
		again, err := m.Encode()
		if err != nil {
			t.Fatalf("a decoded manifest does not encode: %v", err)
		}
		m2, err := DecodeManifest(again)
		if err != nil {
			t.Fatalf("a re-encoded manifest does not decode: %v", err)
		}
		if diff := cmp.Diff(m, m2); diff != "" && m.Version == 2 {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// TestEncodeSorts: a manifest given out of order encodes as the sorted
// one does, and the caller's is left as it was (sorted in a copy).
func TestEncodeSorts(t *testing.T) {
	want, err := sample().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*Manifest){
		"skills": func(m *Manifest) { m.Skills[0], m.Skills[2] = m.Skills[2], m.Skills[0] },
		"files":  func(m *Manifest) { fs := m.Skills[0].Files; fs[0], fs[1] = fs[1], fs[0] },
	} {
		m := sample()
		edit(m)
		given := sample()
		edit(given)
		got, err := m.Encode()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s out of order: encoded differently (%v)", name, err)
		}
		if diff := cmp.Diff(given, m); diff != "" {
			t.Errorf("%s out of order: Encode changed the caller's manifest (-before +after):\n%s", name, diff)
		}
	}
}

// TestEncodeUnmarshalableTime: a header whose time JSON cannot hold is an
// error, not a panic.
func TestEncodeUnmarshalableTime(t *testing.T) {
	m := sample()
	m.Published = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := m.Encode(); err == nil {
		t.Error("a manifest published in the year 10000 encoded")
	}
}
