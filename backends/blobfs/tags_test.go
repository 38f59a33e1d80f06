package blobfs_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
)

// TestReadObjectTag: the tag a GET gives an object (ReadObjectTag) is the
// one a HEAD gives it (ObjectTag) while it is unchanged, and a rewrite
// gives it another, on the drivers whose GET tells it (file:///); on
// memblob, whose GET tells nothing, the GET's tag is "". Each costs its
// one request.
func TestReadObjectTag(t *testing.T) {
	for _, tc := range []struct {
		name   string
		open   func(t *testing.T) *blob.Bucket
		tagged bool
	}{
		{"file", func(t *testing.T) *blob.Bucket {
			b, err := fileblob.OpenBucket(t.TempDir(), &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, true},
		{"mem", func(*testing.T) *blob.Bucket { return memblob.OpenBucket(nil) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := tc.open(t)
			bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{})
			defer bfs.Close()
			heads := map[string]bool{}
			for i, content := range []string{"one", "second"} { // sizes differ: a file's tag is its size and time
				if err := b.WriteAll(ctx, "k", []byte(content), nil); err != nil {
					t.Fatal(err)
				}
				before := bfs.Requests()
				data, get, err := bfs.ReadObjectTag(ctx, "k", 64)
				if err != nil || string(data) != content {
					t.Fatalf("ReadObjectTag = %q, %v; want %q", data, err, content)
				}
				head, err := bfs.ObjectTag(ctx, "k")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(blobfs.Requests{Get: before.Get + 1, Head: before.Head + 1}, bfs.Requests()); diff != "" {
					t.Errorf("a tagged read and a tag cost (-want +got):\n%s", diff)
				}
				switch {
				case tc.tagged && (get == "" || get != head):
					t.Errorf("version %d: the GET's tag is %q, the HEAD's %q; want them equal", i+1, get, head)
				case !tc.tagged && get != "":
					t.Errorf("version %d: the GET's tag is %q; want none from this driver", i+1, get)
				}
				heads[head] = true
			}
			if len(heads) != 2 {
				t.Errorf("two versions of an object have the tags %v; want two tags", heads)
			}
			if _, tag, err := bfs.ReadObjectTag(ctx, "missing", 64); !errors.Is(err, fs.ErrNotExist) || tag != "" {
				t.Errorf("a missing object: tag %q, err %v; want fs.ErrNotExist", tag, err)
			}
			if _, tag, err := bfs.ReadObjectTag(ctx, "k", 3); !errors.Is(err, snapshot.ErrTooLarge) || tag != "" {
				t.Errorf("an object over the limit: tag %q, err %v; want ErrTooLarge", tag, err)
			}
		})
	}
}
