// Package gcsblob adds Google Cloud Storage to backends.Open (through backends/blobfs), as
// gs://bucket?prefix=skills/. Import it for its side effect; it links the
// Google Cloud SDK, which the other backends do not:
//
//	import _ "github.com/skillstore/skillstore/backends/gcsblob"
//
// Credentials come from Application Default Credentials (or anonymous
// access with STORAGE_EMULATOR_HOST); see gocloud.dev/blob/gcsblob.
package gcsblob

import (
	"strconv"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/gcsblob" // the gocloud driver

	"github.com/skillstore/skillstore/backends/blobfs"
)

// Scheme is the URL scheme this package registers.
const Scheme = "gs"

func init() {
	blobfs.Register(Scheme, nil)
	blobfs.RegisterTags(blobfs.Tags{Reader: ReaderTag, Attributes: AttributesTag})
}

// ReaderTag and AttributesTag tag a GCS object by its generation
// (blobfs.Tags), which changes with every write of its content: a GET's
// response carries it (X-Goog-Generation) but not the ETag a HEAD gives.
// An answer without a generation (0) gets no tag from a GET; a HEAD's
// then falls back to the ETag.
func ReaderTag(r *blob.Reader) (string, bool) {
	var sr *storage.Reader
	if !r.As(&sr) {
		return "", false
	}
	if sr == nil || sr.Attrs.Generation == 0 {
		return "", true
	}
	return generationTag(sr.Attrs.Generation), true
}

// AttributesTag is the generation of the object a HEAD describes; see ReaderTag.
func AttributesTag(a *blob.Attributes) (string, bool) {
	var oa storage.ObjectAttrs
	if !a.As(&oa) || oa.Generation == 0 {
		return "", false
	}
	return generationTag(oa.Generation), true
}

func generationTag(gen int64) string { return "generation-" + strconv.FormatInt(gen, 10) }
