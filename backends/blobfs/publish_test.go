package blobfs_test

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
)

// TestPublishBucket drives every method of the adapter Publish writes
// through against memblob: attributes (content type, cache control, MD5)
// reach the store, a wrong MD5 or a failing reader leaves no object,
// a missing object matches fs.ErrNotExist, worded by its key and the
// driver's cause, an object over the limit is refused with
// snapshot.ErrTooLarge, and the walk lists what is under a prefix with
// sizes and times.
func TestPublishBucket(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	p := blobfs.NewPublishBucket(b)
	sum := func(s string) []byte { m := md5.Sum([]byte(s)); return m[:] }

	if ok, err := p.Accessible(ctx); !ok || err != nil {
		t.Fatalf("Accessible = %v, %v; want true, nil", ok, err)
	}
	writes := []struct {
		key, data string
		r         io.Reader // instead of data
		attrs     snapshot.ObjectAttrs
		ok        bool
	}{
		{key: "s/pointer.json", data: "{}", attrs: snapshot.ObjectAttrs{ContentType: "application/json", CacheControl: "no-cache", ContentMD5: sum("{}")}, ok: true},
		{key: "s/blobs/a", data: "hello", attrs: snapshot.ObjectAttrs{ContentType: "application/octet-stream", ContentMD5: sum("hello")}, ok: true},
		{key: "s/blobs/bad-md5", data: "hello", attrs: snapshot.ObjectAttrs{ContentType: "application/octet-stream", ContentMD5: sum("other")}},
		{key: "s/blobs/bad-reader", r: iotest.TimeoutReader(strings.NewReader("partial content")), attrs: snapshot.ObjectAttrs{ContentType: "application/octet-stream"}},
		{key: "outside", data: "x", attrs: snapshot.ObjectAttrs{ContentType: "text/plain", ContentMD5: sum("x")}, ok: true},
	}
	for _, w := range writes {
		r := w.r
		if r == nil {
			r = strings.NewReader(w.data)
		}
		r = iotest.OneByteReader(r) // several writes, not one
		if err := p.WriteObject(ctx, w.key, r, w.attrs); (err == nil) != w.ok {
			t.Errorf("WriteObject(%s) = %v; want success %v", w.key, err, w.ok)
		}
		a, err := b.Attributes(ctx, w.key)
		switch {
		case !w.ok && err == nil:
			t.Errorf("%s: a failed write left an object of %d bytes", w.key, a.Size)
		case w.ok && err != nil:
			t.Errorf("%s: %v", w.key, err)
		case w.ok:
			type attrs struct{ ContentType, CacheControl, MD5 string }
			want := attrs{w.attrs.ContentType, w.attrs.CacheControl, string(w.attrs.ContentMD5)}
			if diff := cmp.Diff(want, attrs{a.ContentType, a.CacheControl, string(a.MD5)}); diff != "" {
				t.Errorf("%s attributes (-want +got):\n%s", w.key, diff)
			}
		}
	}

	if data, err := p.ReadObject(ctx, "s/blobs/a", 5); err != nil || string(data) != "hello" {
		t.Errorf("ReadObject at its limit = %q, %v", data, err)
	}
	if _, err := p.ReadObject(ctx, "s/blobs/a", 4); !errors.Is(err, snapshot.ErrTooLarge) {
		t.Errorf("ReadObject over its limit: %v; want ErrTooLarge", err)
	}
	_, err := p.ReadObject(ctx, "s/none", 10)
	if want := "reading s/none: blob not found"; !errors.Is(err, fs.ErrNotExist) || err.Error() != want {
		t.Errorf("ReadObject of a missing object: %v; want fs.ErrNotExist, worded %q", err, want)
	}

	start := time.Now().Add(-time.Minute)
	got := map[string]int64{}
	err = p.WalkObjects(ctx, "s/", func(o snapshot.ObjectInfo) error {
		if o.ModTime.Before(start) {
			t.Errorf("%s: modified %v", o.Key, o.ModTime)
		}
		got[o.Key] = o.Size
		return nil
	})
	if diff := cmp.Diff(map[string]int64{"s/pointer.json": 2, "s/blobs/a": 5}, got); err != nil || diff != "" {
		t.Errorf("WalkObjects (-want +got):\n%s%v", diff, err)
	}
	stop := errors.New("stop")
	if err := p.WalkObjects(ctx, "", func(snapshot.ObjectInfo) error { return stop }); err != stop {
		t.Errorf("WalkObjects returned %v; want fn's error", err)
	}

	if err := p.DeleteObject(ctx, "outside"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.Exists(ctx, "outside"); ok {
		t.Error("DeleteObject left the object")
	}
	closed := memblob.OpenBucket(nil)
	closed.Close()
	if _, err := blobfs.NewPublishBucket(closed).Accessible(ctx); err == nil {
		t.Error("Accessible on a closed bucket succeeded")
	}
}

// TestPublishBucketCreate: CreateObject writes a key that holds nothing,
// and refuses one that holds an object, with an error that matches
// fs.ErrExist and names the key (fileblob's own words name the file's
// path), leaving the object as it was; on memblob, on a file:// folder
// as the publish command opens it (a hard link), and on fileblob alone,
// whose check is not one step with its write but holds for writes one
// after the other.
func TestPublishBucketCreate(t *testing.T) {
	ctx := context.Background()
	for name, open := range map[string]func(t *testing.T) (*blob.Bucket, *blobfs.PublishBucket){
		"memblob": func(*testing.T) (*blob.Bucket, *blobfs.PublishBucket) {
			b := memblob.OpenBucket(nil)
			return b, blobfs.NewPublishBucket(b)
		},
		"fileblob": func(t *testing.T) (*blob.Bucket, *blobfs.PublishBucket) {
			b, err := fileblob.OpenBucket(t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			return b, blobfs.NewPublishBucket(b)
		},
		"file:// linked": localPublishBucket,
	} {
		t.Run(name, func(t *testing.T) {
			b, p := open(t)
			defer b.Close()
			attrs := func(s string) snapshot.ObjectAttrs {
				m := md5.Sum([]byte(s))
				return snapshot.ObjectAttrs{ContentType: "application/json", ContentMD5: m[:]}
			}
			if err := p.CreateObject(ctx, "s/lock.json", strings.NewReader("first"), attrs("first")); err != nil {
				t.Fatalf("creating a new key: %v", err)
			}
			err := p.CreateObject(ctx, "s/lock.json", strings.NewReader("second"), attrs("second"))
			if want := "s/lock.json: an object is already there"; !errors.Is(err, fs.ErrExist) || err.Error() != want {
				t.Errorf("creating a key that holds an object: %v; want fs.ErrExist, worded %q", err, want)
			}
			if data, err := b.ReadAll(ctx, "s/lock.json"); err != nil || string(data) != "first" {
				t.Errorf("the object after a refused create: %q, %v; want %q", data, err, "first")
			}
			// Unconditional writes still replace it, and a failed
			// create for another cause is not taken for one.
			if err := p.WriteObject(ctx, "s/lock.json", strings.NewReader("third"), attrs("third")); err != nil {
				t.Fatal(err)
			}
			if err := p.CreateObject(ctx, "s/other", strings.NewReader("x"), attrs("not x")); err == nil || errors.Is(err, fs.ErrExist) {
				t.Errorf("a create with a wrong MD5: %v; want a failure that is not fs.ErrExist", err)
			}
		})
	}
}

// localPublishBucket opens a file:// folder with a prefix as the publish
// command does (OpenBucket, PublishBucketFor).
func localPublishBucket(t *testing.T) (*blob.Bucket, *blobfs.PublishBucket) {
	u := "file://" + filepath.ToSlash(t.TempDir()) + "?prefix=team"
	b, _, err := blobfs.OpenBucket(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return b, blobfs.PublishBucketFor(b, u)
}

// TestPublishBucketCreateRacing: of eight creates of one key on a file://
// folder at once, exactly one succeeds and the others find its object,
// which reads back whole through the bucket; no temporary file is left.
func TestPublishBucketCreateRacing(t *testing.T) {
	ctx := context.Background()
	for round := range 20 {
		b, p := localPublishBucket(t)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				body := fmt.Sprintf("writer %d of round %d", i, round)
				m := md5.Sum([]byte(body))
				errs[i] = p.CreateObject(ctx, ".skillstore/lock.json", strings.NewReader(body), snapshot.ObjectAttrs{ContentMD5: m[:]})
			})
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("round %d: writers %d and %d both created the key", round, won, i)
			case err == nil:
				won = i
			case !errors.Is(err, fs.ErrExist) || strings.Contains(err.Error(), os.TempDir()):
				t.Fatalf("round %d: writer %d: %v; want fs.ErrExist, naming the key only", round, i, err)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no writer created the key", round)
		}
		data, err := b.ReadAll(ctx, ".skillstore/lock.json")
		if want := fmt.Sprintf("writer %d of round %d", won, round); err != nil || string(data) != want {
			t.Fatalf("round %d: read back %q, %v; want %q", round, data, err, want)
		}
		var keys []string
		iter := b.List(&blob.ListOptions{})
		for {
			o, err := iter.Next(ctx)
			if err != nil {
				break
			}
			keys = append(keys, o.Key)
		}
		if len(keys) != 1 {
			t.Fatalf("round %d: the folder holds %q; want the lock alone", round, keys)
		}
		b.Close()
	}
}
