package blobfs

import (
	"fmt"
	"io"
	"os"
	"sync"

	"gocloud.dev/blob"

	published "github.com/skillstore/skillstore/backends/snapshot"
)

var _ published.TaggedObjects = (*BucketFS)(nil)

// Tags tell, for one gocloud driver, an object's tag from a GET's response
// the same as from a HEAD's, so a published snapshot's reader learns its
// pointer's tag from the read it makes anyway (BucketFS.ReadObjectTag)
// and its first refresh costs one HEAD, not a HEAD and a GET. Each
// function recognizes its driver by the driver's own response type
// (blob.Reader.As, blob.Attributes.As) and answers ok = false for another
// driver's. The driver packages (backends/s3blob…) register theirs when
// imported; blobfs registers file:///'s (gocloud's fileblob). memblob's
// responses show nothing to recognize: mem:// buckets get no tag from a
// GET.
type Tags struct {
	// Reader returns the tag of the object r reads, as the GET's response
	// gives it: the tag of that content (or, should the driver tell no
	// better, of an older version), never of a newer one. It is "" when
	// this driver's response shows none. Reader must not read from r.
	Reader func(r *blob.Reader) (tag string, ok bool)
	// Attributes, if set, returns the tag of the object a describes (a
	// HEAD), when it is not a's ETag, which ObjectTag gives otherwise;
	// ok is false for another driver's attributes, and when the driver
	// has no better tag for them (ObjectTag then falls back to the ETag).
	Attributes func(a *blob.Attributes) (tag string, ok bool)
}

var (
	tagsMu sync.RWMutex
	tags   []Tags
)

// RegisterTags adds a driver's Tags, used by every BucketFS from then on.
// The driver packages call it when imported.
func RegisterTags(t Tags) {
	tagsMu.Lock()
	defer tagsMu.Unlock()
	tags = append(tags, t)
}

func init() { RegisterTags(fileTags) }

// readerTag is the tag of the object r reads, as a registered driver
// tells it ("" when none does).
func readerTag(r *blob.Reader) string {
	tagsMu.RLock()
	defer tagsMu.RUnlock()
	for _, t := range tags {
		if t.Reader == nil {
			continue
		}
		if tag, ok := t.Reader(r); ok {
			return tag
		}
	}
	return ""
}

// attributesTag is the tag a registered driver gives the object a
// describes, when one gives it other than by its ETag.
func attributesTag(a *blob.Attributes) (string, bool) {
	tagsMu.RLock()
	defer tagsMu.RUnlock()
	for _, t := range tags {
		if t.Attributes == nil {
			continue
		}
		if tag, ok := t.Attributes(a); ok && tag != "" {
			return tag, true
		}
	}
	return "", false
}

// fileTags tag a file of a file:/// bucket (gocloud's fileblob) by its size
// and modification time, as fileblob's ETag does, read from the file the
// GET opened (its reader's *os.File) and from the file a HEAD found (its
// os.FileInfo). Like that ETag, it misses a rewrite to the same size within
// the file system's clock tick; a published folder on a disk is read as a
// folder (snapshot.NewFSObjects, tagged by content) rather than as a
// file:/// bucket.
var fileTags = Tags{
	Reader: func(r *blob.Reader) (string, bool) {
		var ior io.Reader
		if !r.As(&ior) {
			return "", false
		}
		f, ok := ior.(*os.File)
		if !ok {
			return "", false
		}
		fi, err := f.Stat()
		if err != nil {
			return "", true
		}
		return fileTag(fi), true
	},
	Attributes: func(a *blob.Attributes) (string, bool) {
		var fi os.FileInfo
		if !a.As(&fi) || fi == nil {
			return "", false
		}
		return fileTag(fi), true
	},
}

func fileTag(fi os.FileInfo) string {
	return fmt.Sprintf("file-%d-%d", fi.Size(), fi.ModTime().UnixNano())
}
