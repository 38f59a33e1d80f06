package backends_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// The store's discovery over the local backend with the Agent Plugins
// grouper. These benchmarks lived in package store; its tests import
// nothing above it.

// plugins10k is 10,000 skills as storetest.Tree10k writes them, in 1,000 Agent
// Plugins of 10 skills each.
func plugins10k(b *testing.B) string {
	plugins10kOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skillstore-bench-plugins-")
		if err != nil {
			b.Fatal(err)
		}
		for p := range 1000 {
			plugin := fmt.Sprintf("plugin-%04d", p)
			os.MkdirAll(filepath.Join(dir, plugin), 0o755)
			os.WriteFile(filepath.Join(dir, plugin, "plugin.json"), []byte(`{"$schema": "`+backends.PluginSchema+`", "name": "`+plugin+`", "version": "1.0.0"}`), 0o644)
			for i := range 10 {
				storetest.WriteBenchSkill(filepath.Join(dir, plugin, "skills"), fmt.Sprintf("skill-%05d", p*10+i))
			}
		}
		plugins10kDir = dir
	})
	return plugins10kDir
}

// BenchmarkDiscoverPlugins10k builds cold catalogs of 10,000 skills from
// local disk, as store's BenchmarkDiscoverLocal10k does: skill folders read with
// and without the Agent Plugins grouper (what looking for plugins costs a
// folder of skills), and 1,000 plugins of 10 skills.
func BenchmarkDiscoverPlugins10k(b *testing.B) {
	for _, c := range []struct {
		name    string
		dir     func(*testing.B) string
		grouper store.Grouper
	}{{"skills", storetest.Tree10k, nil}, {"skills+grouper", storetest.Tree10k, backends.Plugins}, {"plugins", plugins10k, backends.Plugins}} {
		b.Run(c.name, func(b *testing.B) {
			l, err := backends.OpenLocal(c.dir(b))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				s, _ := store.New([]store.Source{{Label: "project", FS: l, Grouper: c.grouper}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
				cat, err := s.View(nil).Catalog(ctx)
				if err != nil || len(cat.Skills) != 10000 {
					b.Fatalf("%v, %d skills", err, len(cat.Skills))
				}
				b.StopTimer()
				s.Indexed(context.Background())
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRefreshPluginsIdle refreshes, with nothing changed, a catalog
// of 60 plugins on local disk whose plugin.json each hold a description
// of 1,000,000 bytes (under the 1 MiB bound), one skill each: what an
// idle server pays at every rescan.
func BenchmarkRefreshPluginsIdle(b *testing.B) {
	dir := b.TempDir()
	desc := strings.Repeat("d", 1_000_000)
	for p := range 60 {
		plugin := fmt.Sprintf("plugin-%02d", p)
		os.MkdirAll(filepath.Join(dir, plugin), 0o755)
		os.WriteFile(filepath.Join(dir, plugin, "plugin.json"), []byte(`{"$schema": "`+backends.PluginSchema+`", "name": "`+plugin+`", "description": "`+desc+`"}`), 0o644)
		storetest.WriteBenchSkill(filepath.Join(dir, plugin, "skills"), "skill-"+plugin)
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	s, _ := store.New([]store.Source{{Label: "project", FS: l, Grouper: backends.Plugins}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if c, err := s.View(nil).Catalog(ctx); err != nil || len(c.Skills) != 60 {
		b.Fatalf("%v, %d skills", err, len(c.Skills))
	}
	b.ReportAllocs()
	for b.Loop() {
		if ch, err := s.Refresh(ctx); err != nil || !ch.Empty() {
			b.Fatalf("%v, %+v", err, ch)
		}
	}
}

var (
	plugins10kOnce sync.Once
	plugins10kDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	storetest.RemoveTree10k()
	for _, dir := range []string{plugins10kDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}
