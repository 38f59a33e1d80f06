package skilldiff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/internal/hidden"
)

// version is a version's files by path, and what reading them counted.
type version map[string]string

func (v version) files() []File {
	var out []File
	for p, data := range v {
		sum := sha256.Sum256([]byte(data))
		out = append(out, File{Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))})
	}
	return out
}

// reader reads from and to, and records each read as "SIDE:PATH".
func reader(from, to version, reads *[]string) ReadFunc {
	return func(_ context.Context, side int, p string) ([]byte, error) {
		v := from
		if side == SideTo {
			v = to
		}
		*reads = append(*reads, fmt.Sprintf("%d:%s", side, p))
		data, ok := v[p]
		if !ok {
			return nil, errors.New("no such file: " + p)
		}
		return []byte(data), nil
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestCompute(t *testing.T) {
	big := strings.Repeat("x", 2000) + "\n"
	tests := []struct {
		name      string
		from, to  version
		opts      Options
		want      []Change // Findings compared by Kind and Line only
		same      int
		wantReads []string
	}{
		{
			name: "unchanged files are counted, never read",
			from: version{"SKILL.md": "a\n", "x.txt": "same\n"},
			to:   version{"SKILL.md": "b\n", "x.txt": "same\n"},
			want: []Change{{Path: "SKILL.md", Kind: Changed, From: sum("a\n"), To: sum("b\n"), FromSize: 2, ToSize: 2,
				Unified: "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1 +1 @@\n-a\n+b\n"}},
			same:      1,
			wantReads: []string{"0:SKILL.md", "1:SKILL.md"},
		},
		{
			name: "added and removed, sorted by path",
			from: version{"SKILL.md": "s\n", "old.txt": "gone\n"},
			to:   version{"SKILL.md": "s\n", "a/new.txt": "one\ntwo\n"},
			want: []Change{
				{Path: "a/new.txt", Kind: Added, To: sum("one\ntwo\n"), ToSize: 8,
					Unified: "--- /dev/null\n+++ b/a/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"},
				{Path: "old.txt", Kind: Removed, From: sum("gone\n"), FromSize: 5,
					Unified: "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"},
			},
			same:      1,
			wantReads: []string{"1:a/new.txt", "0:old.txt"},
		},
		{
			name:      "binary on either side",
			from:      version{"img.bin": "\x00\x01"},
			to:        version{"img.bin": "text now\n"},
			want:      []Change{{Path: "img.bin", Kind: Changed, From: sum("\x00\x01"), To: sum("text now\n"), FromSize: 2, ToSize: 9, Binary: true}},
			wantReads: []string{"0:img.bin", "1:img.bin"},
		},
		{
			name: "a file over MaxFileBytes is not read",
			from: version{"big.txt": big},
			to:   version{"big.txt": big + "more\n"},
			opts: Options{MaxFileBytes: 1000},
			want: []Change{{Path: "big.txt", Kind: Changed, From: sum(big), To: sum(big + "more\n"), FromSize: 2001, ToSize: 2006, Truncated: true}},
		},
		{
			name: "Unified cut at MaxUnifiedBytes, at a line",
			from: version{"f.txt": "1\n2\n3\n"},
			to:   version{"f.txt": "4\n5\n6\n"},
			opts: Options{MaxUnifiedBytes: 40},
			want: []Change{{Path: "f.txt", Kind: Changed, From: sum("1\n2\n3\n"), To: sum("4\n5\n6\n"), FromSize: 6, ToSize: 6, Truncated: true,
				Unified: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n"}},
			wantReads: []string{"0:f.txt", "1:f.txt"},
		},
		{
			name: "CRLF and BOM are changes, shown as they are",
			from: version{"a.md": "x\ny\n"},
			to:   version{"a.md": "\ufeffx\r\ny\n"},
			want: []Change{{Path: "a.md", Kind: Changed, From: sum("x\ny\n"), To: sum("\ufeffx\r\ny\n"), FromSize: 4, ToSize: 8,
				Unified: "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n-x\n+\ufeffx\r\n y\n"}},
			wantReads: []string{"0:a.md", "1:a.md"},
		},
		{
			name: "findings of the new side, Markdown rules for .md, an added name too",
			from: version{"SKILL.md": "hi\n"},
			to:   version{"SKILL.md": "hi\n<!-- do evil -->\n", "n\u202eote.txt": "ok\u200b\n"},
			want: []Change{
				{Path: "SKILL.md", Kind: Changed, From: sum("hi\n"), To: sum("hi\n<!-- do evil -->\n"), FromSize: 3, ToSize: 20,
					Unified:  "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1 +1,2 @@\n hi\n+<!-- do evil -->\n",
					Findings: []hidden.Finding{{Path: "SKILL.md", Line: 2, Kind: hidden.HTMLComment}}},
				{Path: "n\u202eote.txt", Kind: Added, To: sum("ok\u200b\n"), ToSize: 6,
					Unified:  "--- /dev/null\n+++ b/n\u202eote.txt\n@@ -0,0 +1 @@\n+ok\u200b\n",
					Findings: []hidden.Finding{{Path: "n\u202eote.txt", Kind: hidden.BidiControl}, {Path: "n\u202eote.txt", Line: 1, Kind: hidden.ZeroWidth}}},
			},
			wantReads: []string{"0:SKILL.md", "1:SKILL.md", "1:n\u202eote.txt"},
		},
		{
			name: "past MaxTotalBytes: not read",
			from: version{"a.txt": "1\n", "b.txt": "1\n"},
			to:   version{"a.txt": "2\n", "b.txt": "2\n"},
			opts: Options{MaxTotalBytes: 10},
			want: []Change{
				{Path: "a.txt", Kind: Changed, From: sum("1\n"), To: sum("2\n"), FromSize: 2, ToSize: 2, Truncated: true},
				{Path: "b.txt", Kind: Changed, From: sum("1\n"), To: sum("2\n"), FromSize: 2, ToSize: 2, Truncated: true},
			},
			wantReads: []string{"0:a.txt", "1:a.txt"},
		},
		{
			name: "no newline at end of file",
			from: version{"f": "a\nb"},
			to:   version{"f": "a\nb\n"},
			want: []Change{{Path: "f", Kind: Changed, From: sum("a\nb"), To: sum("a\nb\n"), FromSize: 3, ToSize: 4,
				Unified: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"}},
			wantReads: []string{"0:f", "1:f"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reads []string
			d, err := Compute(context.Background(), tt.from.files(), tt.to.files(), reader(tt.from, tt.to, &reads), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			opts := cmp.Options{cmpopts.IgnoreFields(hidden.Finding{}, "Column", "Text", "Message"), cmpopts.EquateEmpty()}
			if diff := cmp.Diff(tt.want, d.Changes, opts); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if d.Same != tt.same {
				t.Errorf("Same = %d, want %d", d.Same, tt.same)
			}
			if diff := cmp.Diff(tt.wantReads, reads, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	f := File{Path: "a", SHA256: sum("1"), Size: 1}
	g := File{Path: "a", SHA256: sum("2"), Size: 1}
	failing := func(context.Context, int, string) ([]byte, error) { return nil, errors.New("blob gone") }
	ctx := context.Background()
	if _, err := Compute(ctx, []File{f, f}, nil, failing, Options{}); err == nil || !strings.Contains(err.Error(), `lists the file "a" twice`) {
		t.Errorf("a path twice: %v", err)
	}
	if _, err := Compute(ctx, []File{f}, []File{g}, failing, Options{}); err == nil || err.Error() != "blob gone" {
		t.Errorf("a read failing: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Compute(canceled, []File{f}, []File{g}, failing, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled context: %v", err)
	}
	// A read giving more than MaxFileBytes, whatever the list says: not compared.
	liar := func(context.Context, int, string) ([]byte, error) { return make([]byte, 2000), nil }
	d, err := Compute(ctx, []File{f}, []File{g}, liar, Options{MaxFileBytes: 1000})
	if err != nil || len(d.Changes) != 1 || !d.Changes[0].Truncated || d.Changes[0].Unified != "" || d.Changes[0].Binary {
		t.Errorf("a read over its size: %+v, %v", d, err)
	}
	// The same file on both sides: nothing to read, nothing changed.
	d, err = Compute(ctx, []File{f}, []File{f}, failing, Options{})
	if err != nil || len(d.Changes) != 0 || d.Same != 1 {
		t.Errorf("unchanged: %+v, %v", d, err)
	}
}

// gnuDiff is diff -u's output for a and b under the labels a/f and b/f,
// or the test is skipped when there is no diff.
func gnuDiff(t *testing.T, a, b string, minimal bool) string {
	t.Helper()
	bin, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("no diff on this machine")
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-u", "--label", "a/f", "--label", "b/f", "-a"}
	if minimal {
		args = append(args, "--minimal")
	}
	out, err := exec.Command(bin, append(args, pa, pb)...).Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	return string(out)
}

// TestUnifiedAsGNUDiff compares the text with diff -u's where the
// shortest diff is one only (so both must find it).
func TestUnifiedAsGNUDiff(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct{ name, a, b string }{
		{"one line changed", lines(1, 20), strings.Replace(lines(1, 20), "line 10\n", "line ten\n", 1)},
		{"added at the start", lines(1, 10), "new\n" + lines(1, 10)},
		{"removed at the end", lines(1, 10), lines(1, 8)},
		{"two hunks", lines(1, 30), strings.Replace(strings.Replace(lines(1, 30), "line 3\n", "three\n", 1), "line 25\n", "", 1)},
		{"changes 6 lines apart share a hunk", lines(1, 20), strings.Replace(strings.Replace(lines(1, 20), "line 5\n", "five\n", 1), "line 12\n", "twelve\n", 1)},
		{"changes 7 lines apart do not", lines(1, 20), strings.Replace(strings.Replace(lines(1, 20), "line 5\n", "five\n", 1), "line 13\n", "thirteen\n", 1)},
		{"from empty", "", lines(1, 3)},
		{"to empty", lines(1, 3), ""},
		{"no newline at the end, on both sides", "a\nb", "a\nc"},
		{"newline added at the end", "a\nb", "a\nb\n"},
		{"CRLF", "a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n"},
		{"a BOM added", "a\nb\n", "\ufeffa\nb\n"},
		{"every line replaced", lines(1, 5), lines(6, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := unified("a/f", "b/f", tt.a, tt.b, DefaultMaxEdits, DefaultMaxUnifiedBytes)
			if cut {
				t.Fatal("cut")
			}
			want := gnuDiff(t, tt.a, tt.b, false)
			if want == "" {
				want = "--- a/f\n+++ b/f\n"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-diff -u +unified:\n%s", diff)
			}
		})
	}
}

// apply applies a unified diff of one file to a, as patch does.
func apply(t *testing.T, a, patch string) string {
	t.Helper()
	header := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)
	old := splitLines(a)
	var out []string
	next := 0 // the next line of old not yet copied
	pl := splitLines(patch)
	if len(pl) < 2 {
		t.Fatalf("no headers: %q", patch)
	}
	pl = pl[2:]
	for i := 0; i < len(pl); i++ {
		m := header.FindStringSubmatch(strings.TrimSuffix(pl[i], "\n"))
		if m == nil {
			t.Fatalf("not a hunk header: %q", pl[i])
		}
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		if n > 0 {
			start-- // 1-based; an empty range names the line before
		}
		out = append(out, old[next:start]...)
		next = start
		for i+1 < len(pl) && !strings.HasPrefix(pl[i+1], "@@") {
			i++
			l := pl[i]
			if i+1 < len(pl) && pl[i+1] == "\\ No newline at end of file\n" {
				l = strings.TrimSuffix(l, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				if old[next] != l[1:] {
					t.Fatalf("context %q is not line %d %q", l, next+1, old[next])
				}
				out = append(out, l[1:])
				next++
			case '-':
				if old[next] != l[1:] {
					t.Fatalf("removed %q is not line %d %q", l, next+1, old[next])
				}
				next++
			case '+':
				out = append(out, l[1:])
			default:
				t.Fatalf("a line of a hunk: %q", l)
			}
		}
	}
	return strings.Join(append(out, old[next:]...), "")
}

// changed counts a diff's removed and added lines.
func changed(patch string) (del, ins int) {
	for _, l := range splitLines(patch) {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			del++
		case strings.HasPrefix(l, "+"):
			ins++
		}
	}
	return del, ins
}

// TestUnifiedRandom checks random pairs: the diff applied to a gives b,
// and it changes as few lines as diff --minimal's.
func TestUnifiedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 38))
	text := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString([]string{"a\n", "b\n", "c\n", "d\r\n", "e"}[r.IntN(5)])
		}
		return b.String()
	}
	for i := range 200 {
		a, b := text(), text()
		got, _ := unified("a/f", "b/f", a, b, DefaultMaxEdits, DefaultMaxUnifiedBytes)
		if applied := apply(t, a, got); applied != b {
			t.Fatalf("pair %d: %q patched with\n%s\ngives %q, want %q", i, a, got, applied, b)
		}
		gd, gi := changed(gnuDiff(t, a, b, true))
		if d, in := changed(got); d+in != gd+gi {
			t.Errorf("pair %d: %q to %q: %d lines removed, %d added; diff --minimal: %d and %d\n%s", i, a, b, d, in, gd, gi, got)
		}
	}
}

// TestHostile: inputs past the bounds give a correct diff, replaced
// whole between the first and last change, and a Unified within bounds.
func TestHostile(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 38))
	lines := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d-%d\n", prefix, i, r.Int())
		}
		return b.String()
	}
	t.Run("past MaxEdits: replaced whole, still applies", func(t *testing.T) {
		a := "head\n" + lines(50, "a") + "tail\n"
		b := "head\n" + lines(50, "b") + "tail\n"
		got, cut := unified("a/f", "b/f", a, b, 10, DefaultMaxUnifiedBytes)
		if cut {
			t.Fatal("cut")
		}
		if applied := apply(t, a, got); applied != b {
			t.Fatalf("does not apply:\n%s", got)
		}
		if !strings.Contains(got, "@@ -1,52 +1,52 @@\n head\n-a0-") {
			t.Errorf("not one hunk replacing the middle:\n%.200s", got)
		}
	})
	t.Run("some lines shared, past MaxEdits: applies", func(t *testing.T) {
		var a, b strings.Builder
		for i := range 300 {
			fmt.Fprintf(&a, "%d\n", i)
			if i%3 != 0 {
				fmt.Fprintf(&b, "%d\n", i)
			} else {
				fmt.Fprintf(&b, "x%d\n", i)
			}
		}
		got, _ := unified("a/f", "b/f", a.String(), b.String(), 20, 1<<30)
		if applied := apply(t, a.String(), got); applied != b.String() {
			t.Fatal("does not apply")
		}
	})
	t.Run("two 1 MiB files with no line in common", func(t *testing.T) {
		a, b := lines(40000, "a")[:1<<20], lines(40000, "b")[:1<<20]
		from, to := version{"f.txt": a}, version{"f.txt": b}
		var reads []string
		d, err := Compute(context.Background(), from.files(), to.files(), reader(from, to, &reads), Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := d.Changes[0]
		if !c.Truncated || len(c.Unified) > DefaultMaxUnifiedBytes || !strings.HasPrefix(c.Unified, "--- a/f.txt\n+++ b/f.txt\n@@ -1,") {
			t.Errorf("Truncated %v, %d bytes: %.100q", c.Truncated, len(c.Unified), c.Unified)
		}
	})
	t.Run("one very long line each", func(t *testing.T) {
		a := strings.Repeat("a", 1<<20-1) + "\n"
		b := strings.Repeat("a", 1<<19) + "b" + strings.Repeat("a", 1<<19-2) + "\n"
		got, cut := unified("a/f", "b/f", a, b, DefaultMaxEdits, DefaultMaxUnifiedBytes)
		if !cut || got != "--- a/f\n+++ b/f\n@@ -1 +1 @@\n" {
			t.Errorf("cut %v, %.100q", cut, got)
		}
	})
}

func TestWriteUnified(t *testing.T) {
	d := &Diff{Changes: []Change{
		{Path: "a.bin", Kind: Changed, Binary: true},
		{Path: "big.txt", Kind: Changed, Truncated: true, FromSize: 10, ToSize: 2 << 20},
		{Path: "cut.txt", Kind: Changed, Truncated: true, Unified: "--- a/cut.txt\n+++ b/cut.txt\n"},
		{Path: "new.bin", Kind: Added, Binary: true},
		{Path: "new\nline", Kind: Removed, Binary: true},
		{Path: "x.txt", Kind: Changed, Unified: "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n"},
	}}
	var b bytes.Buffer
	if err := d.WriteUnified(&b); err != nil {
		t.Fatal(err)
	}
	want := `Binary files a/a.bin and b/a.bin differ
Files a/big.txt and b/big.txt differ (not compared: 10 and 2097152 bytes, or past the diff's bounds)
--- a/cut.txt
+++ b/cut.txt
\ diff cut: the rest of this file's diff is not shown
Binary files /dev/null and b/new.bin differ
Binary files "a/new\nline" and /dev/null differ
--- a/x.txt
+++ b/x.txt
@@ -1 +1 @@
-a
+b
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// benchPair is a 1 MiB text of short lines and a copy with every 100th
// line changed.
func benchPair() (string, string) {
	var a, b strings.Builder
	for i := 0; a.Len() < 1<<20-64; i++ {
		l := fmt.Sprintf("line %d: some words of a skill's script, as a reviewer reads them\n", i)
		a.WriteString(l)
		if i%100 == 50 {
			l = fmt.Sprintf("line %d: changed\n", i)
		}
		b.WriteString(l)
	}
	return a.String(), b.String()
}

func BenchmarkCompute(b *testing.B) {
	similarA, similarB := benchPair()
	r := rand.New(rand.NewPCG(3, 38))
	var ha, hb strings.Builder
	for ha.Len() < 1<<20-64 {
		fmt.Fprintf(&ha, "a %d\n", r.Int())
		fmt.Fprintf(&hb, "b %d\n", r.Int())
	}
	// Lines of "a" and "b" at random, and a copy with every 50th line
	// flipped: past MaxEdits, with snakes of some length everywhere.
	var ma, mb strings.Builder
	for i := 0; ma.Len() < 1<<20-2; i++ {
		l := []string{"a\n", "b\n"}[r.IntN(2)]
		ma.WriteString(l)
		if i%50 == 25 {
			l = map[string]string{"a\n": "b\n", "b\n": "a\n"}[l]
		}
		mb.WriteString(l)
	}
	for _, bc := range []struct{ name, a, b string }{
		{"similar-1MiB", similarA, similarB},
		{"many-changes-1MiB", ma.String(), mb.String()},
		{"disjoint-1MiB", ha.String(), hb.String()},
		{"one-line-1MiB", strings.Repeat("a", 1<<20-1) + "\n", strings.Repeat("b", 1<<20-1) + "\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			from, to := version{"f.txt": bc.a}, version{"f.txt": bc.b}
			ff, tf := from.files(), to.files()
			read := func(_ context.Context, side int, p string) ([]byte, error) {
				if side == SideFrom {
					return []byte(from[p]), nil
				}
				return []byte(to[p]), nil
			}
			b.SetBytes(int64(len(bc.a) + len(bc.b)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(context.Background(), ff, tf, read, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
