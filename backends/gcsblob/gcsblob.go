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
	_ "gocloud.dev/blob/gcsblob" // the gocloud driver

	"github.com/skillstore/skillstore/backends/blobfs"
)

// Scheme is the URL scheme this package registers.
const Scheme = "gs"

func init() { blobfs.Register(Scheme, nil) }
