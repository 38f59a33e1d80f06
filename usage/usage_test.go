package usage_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/usage"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// clock returns a clock that moves a minute at each call.
func clock() func() time.Time {
	var mu sync.Mutex
	now := t0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Minute)
		return now
	}
}

func TestRecordAndBounds(t *testing.T) {
	tests := []struct {
		name   string
		opts   usage.Options
		loads  [][2]string // skill, subject
		want   []usage.Stat
		totals usage.Totals
	}{
		{
			name:  "counts loads, distinct principals and the last use",
			loads: [][2]string{{"a", "alice"}, {"b", "bob"}, {"a", "alice"}, {"a", "bob"}, {"a", ""}, {"", "alice"}},
			want: []usage.Stat{
				{Skill: "a", Loads: 4, Principals: 2, LastUsed: t0.Add(5 * time.Minute)},
				{Skill: "b", Loads: 1, Principals: 1, LastUsed: t0.Add(2 * time.Minute)},
			},
			totals: usage.Totals{Loads: 5, Skills: 2},
		},
		{
			name:  "skills past the bound are counted as untracked",
			opts:  usage.Options{MaxSkills: 2},
			loads: [][2]string{{"a", "x"}, {"b", "x"}, {"c", "x"}, {"c", "y"}, {"a", "x"}},
			want: []usage.Stat{
				{Skill: "a", Loads: 2, Principals: 1, LastUsed: t0.Add(5 * time.Minute)},
				{Skill: "b", Loads: 1, Principals: 1, LastUsed: t0.Add(2 * time.Minute)},
			},
			totals: usage.Totals{Loads: 5, Untracked: 2, Skills: 2},
		},
		{
			name:   "principals past the bound make the count a floor",
			opts:   usage.Options{MaxPrincipals: 2},
			loads:  [][2]string{{"a", "x"}, {"a", "y"}, {"a", "x"}, {"a", "z"}},
			want:   []usage.Stat{{Skill: "a", Loads: 4, Principals: 2, MorePrincipals: true, LastUsed: t0.Add(4 * time.Minute)}},
			totals: usage.Totals{Loads: 4, Skills: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Now = clock()
			c := usage.New(tt.opts)
			for _, l := range tt.loads {
				c.Record(l[0], l[1])
			}
			if diff := cmp.Diff(tt.want, c.Stats()); diff != "" {
				t.Errorf("stats (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tt.totals, c.Totals()); diff != "" {
				t.Errorf("totals (-want +got)\n%s", diff)
			}
		})
	}
}

func TestPrincipalsText(t *testing.T) {
	for _, tt := range []struct {
		s    usage.Stat
		want string
	}{{usage.Stat{Principals: 3}, "3"}, {usage.Stat{Principals: 256, MorePrincipals: true}, "256+"}} {
		if got := tt.s.PrincipalsText(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestConcurrent records from many goroutines while saving and reading;
// run with -race.
func TestConcurrent(t *testing.T) {
	c, err := usage.Open(filepath.Join(t.TempDir(), "usage.json"), usage.Options{MaxSkills: 5, MaxPrincipals: 3})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				c.Record(string(rune('a'+i%7)), string(rune('A'+g)))
				if i%50 == 0 {
					c.Stats()
					if err := c.Save(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	tot := c.Totals()
	if tot.Loads != 1600 || tot.Skills != 5 {
		t.Errorf("totals %+v, want 1600 loads of 5 skills", tot)
	}
	var sum uint64
	for _, s := range c.Stats() {
		sum += s.Loads
		if s.Principals != 3 || !s.MorePrincipals {
			t.Errorf("%s: %s principals, want 3+", s.Skill, s.PrincipalsText())
		}
	}
	if sum+tot.Untracked != tot.Loads {
		t.Errorf("tracked %d + untracked %d != %d", sum, tot.Untracked, tot.Loads)
	}
}

// TestRoundTrip: what is saved is restored, principals included (the same
// principal again is not a new one), and the file holds no subject.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	c, err := usage.Open(path, usage.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	c.Record("a", "alice@example.com")
	c.Record("a", "bob@example.com")
	c.Record("b", "alice@example.com")
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "alice") || strings.Contains(string(raw), "bob") {
		t.Errorf("the file holds a subject: %s", raw)
	}
	d, err := usage.Open(path, usage.Options{Now: func() time.Time { return t0.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Stats(), d.Stats()); diff != "" {
		t.Errorf("restored stats (-saved +restored)\n%s", diff)
	}
	d.Record("a", "alice@example.com")
	d.Record("b", "carol@example.com")
	want := []usage.Stat{
		{Skill: "a", Loads: 3, Principals: 2, LastUsed: t0.Add(time.Hour)},
		{Skill: "b", Loads: 2, Principals: 2, LastUsed: t0.Add(time.Hour)},
	}
	if diff := cmp.Diff(want, d.Stats()); diff != "" {
		t.Errorf("after restart (-want +got)\n%s", diff)
	}
	if err := d.Save(); err != nil {
		t.Fatal(err)
	}
	f, err := usage.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(usage.File{Loads: 5, Skills: want}, f); diff != "" {
		t.Errorf("ReadFile (-want +got)\n%s", diff)
	}
}

// TestCorruptFile: a corrupt file is reported, set aside, and counting
// starts from zero; the next save writes a good file.
func TestCorruptFile(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":      "{\"version\":1,\"skills\":[",
		"wrong version": `{"version":9,"skills":[]}`,
		"bad salt":      `{"version":1,"salt":"!!","skills":[]}`,
		"bad hash":      `{"version":1,"salt":"AAAAAAAAAAAAAAAAAAAAAA==","skills":[{"skill":"a","loads":1,"principal_hashes":["zz"]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "usage.json")
			os.WriteFile(path, []byte(content), 0o600)
			c, err := usage.Open(path, usage.Options{})
			var ce *usage.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Open: %v, want a CorruptError", err)
			}
			if c == nil || len(c.Stats()) != 0 || c.Totals().Loads != 0 {
				t.Fatalf("counter after a corrupt file: %v", c)
			}
			c.Record("a", "x")
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
			if f, err := usage.ReadFile(path); err != nil || f.Loads != 1 {
				t.Errorf("after a save: %+v, %v", f, err)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "usage.json")
	os.WriteFile(path, []byte("garbage"), 0o600)
	usage.Open(path, usage.Options{})
	if b, err := os.ReadFile(path + ".corrupt"); err != nil || string(b) != "garbage" {
		t.Errorf("the corrupt file is not kept aside: %q, %v", b, err)
	}
}

// TestUnwritable: a save that fails is reported once, counted, and the
// counts stay in memory; the next save that works writes them.
func TestUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	path := filepath.Join(dir, "usage.json")
	c, err := usage.Open(path, usage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		c.Persist(ctx, time.Millisecond, log)
		close(done)
	}()
	c.Record("a", "x")
	deadline := time.Now().Add(5 * time.Second)
	for c.Totals().SaveFailures < 3 && time.Now().Before(deadline) {
		c.Record("a", "x")
		time.Sleep(2 * time.Millisecond)
	}
	if n := c.Totals().SaveFailures; n < 3 {
		t.Fatalf("%d save failures, want some", n)
	}
	if n := strings.Count(logBuf.String(), "usage file not written"); n != 1 {
		t.Errorf("%d warnings while failing, want 1:\n%s", n, logBuf.String())
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	loads := c.Totals().Loads
	cancel()
	<-done
	f, err := usage.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Loads != loads {
		t.Errorf("saved %d loads, want %d", f.Loads, loads)
	}
	if !strings.Contains(logBuf.String(), "usage file written again") {
		t.Errorf("no recovery logged:\n%s", logBuf.String())
	}
}

// TestNewHasNoFile: a counter made by New saves nothing.
func TestNewHasNoFile(t *testing.T) {
	c := usage.New(usage.Options{})
	c.Record("a", "x")
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
}
