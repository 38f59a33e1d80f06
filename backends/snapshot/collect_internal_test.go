package snapshot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// walkBucket is a Bucket that lists keys (and counts its listings); it
// writes and reads nothing.
type walkBucket struct {
	Bucket
	keys  []string
	mu    sync.Mutex
	walks []string // the prefixes listed
}

func (b *walkBucket) WalkObjects(_ context.Context, prefix string, fn func(ObjectInfo) error) error {
	b.mu.Lock()
	b.walks = append(b.walks, prefix)
	b.mu.Unlock()
	for i, k := range b.keys {
		if strings.HasPrefix(k, prefix) {
			if err := fn(ObjectInfo{Key: k, Size: int64(i), ModTime: time.Unix(int64(i), 0)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestListBlobs: however the listing goes (whole, by 16 prefixes or by
// 256 folders, or whole then by prefix when it finds more than it
// expected), it finds every blob, and every other key under blobs/ that
// a sharded listing covers.
func TestListBlobs(t *testing.T) {
	defer func(a, b int) { shardAbove, shard256 = a, b }(shardAbove, shard256)
	shardAbove, shard256 = 20, 100
	var keys []string
	for i := range 150 {
		keys = append(keys, BlobKey(Sum([]byte(fmt.Sprint(i)))))
	}
	keys = append(keys, Dir+"/blobs/ab/leftover.tmp", Dir+"/snapshots/x.json")
	want := newBlobSet(0)
	for i, k := range keys[:151] {
		want.add(ObjectInfo{Key: k, Size: int64(i), ModTime: time.Unix(int64(i), 0)})
	}
	for _, tc := range []struct {
		name   string
		expect int
		walks  int // listings made
	}{
		{"whole, then by prefix", 0, 1 + 16},
		{"by prefix", 50, 16},
		{"by folder", 150, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &walkBucket{keys: keys}
			got, err := listBlobs(context.Background(), b, 4, tc.expect)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.blobs, got.blobs, cmp.AllowUnexported(blob{})); diff != "" {
				t.Errorf("blobs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.others, got.others); diff != "" {
				t.Errorf("other keys (-want +got):\n%s", diff)
			}
			if len(b.walks) != tc.walks || slices.Contains(b.walks, Dir+"/") {
				t.Errorf("%d listings (%v); want %d", len(b.walks), b.walks[:min(3, len(b.walks))], tc.walks)
			}
		})
	}
	small := &walkBucket{keys: keys[:10]}
	if got, err := listBlobs(context.Background(), small, 4, 0); err != nil || len(got.blobs) != 10 || len(small.walks) != 1 {
		t.Errorf("a small bucket: %d blobs in %d listings, %v; want 10 in 1", len(got.blobs), len(small.walks), err)
	}
}
