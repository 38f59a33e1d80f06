package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/backends/snapshot/snapshottest"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// fleetServer is a server over a published snapshot of n generated skills
// (snapshottest.Fleet: the shape of a cold replica), its first lists built.
func fleetServer(b *testing.B, n int) *Server {
	const id = "20261122T000000.000000000Z-bench"
	fleet := snapshottest.Fleet(n, id, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	objects := fstest.MapFS{snapshot.ManifestKey(id): {Data: fleet[snapshot.ManifestKey(id)]}, snapshot.PointerKey: {Data: fleet[snapshot.PointerKey]}} // the lists read no blob
	ctx := context.Background()
	pub, err := snapshot.Open(ctx, snapshot.NewFSObjects(objects), snapshot.Options{Location: "s3://fleet?prefix=skills/", Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.New([]store.Source{{Label: "org", Location: "s3://fleet?prefix=skills/", Kind: "s3", FS: pub}}, store.Options{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(ctx, tools.New(st, tools.Options{}), Options{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	<-srv.ready
	if got := len(srv.lists.Load().tools); got == 0 {
		b.Fatal("no tools listed")
	}
	return srv
}

// BenchmarkLists100k measures, over a published snapshot of 100,000
// skills: Sync (rebuilding the lists from an unchanged catalog; live-B is
// the heap the lists hold once built, measured by dropping them, collecting,
// syncing and collecting again), and one full page of resources/list and of
// prompts/list from the middle of the catalog, in process (2026-07-28, no
// session), so a page's making and encoding are what is measured.
func BenchmarkLists100k(b *testing.B) {
	const n = 100_000
	srv := fleetServer(b, n)
	ctx := context.Background()
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := srv.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		srv.lists.Store(newLists())
		before := liveHeap()
		if err := srv.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(int64(liveHeap())-int64(before)), "live-B")
	})
	conn := srv.Connect(nil)
	defer conn.Close()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}`
	mid := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "skill-%06d", n/2)) // a page boundary: the last name of the page before
	for _, method := range []string{"resources/list", "prompts/list"} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `,"cursor":"` + mid + `"}}`)
		res, err := conn.Call(ctx, msg)
		if err != nil || !bytes.Contains(res, []byte(`"nextCursor"`)) || bytes.Count(res, []byte(`"name":"skill-`)) != ListPageSize {
			b.Fatalf("%s: %v %.300s", method, err, res)
		}
		b.Run(method, func(b *testing.B) {
			b.SetBytes(int64(len(res)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conn.Call(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
