// Package s3blob adds Amazon S3 and S3-compatible stores (MinIO, versitygw,
// Ceph, R2…) to backends.Open (through backends/blobfs), as s3://bucket?prefix=skills/&region=…
// (and endpoint=…&use_path_style=true for S3-compatible stores). Import it
// for its side effect; it links the AWS SDK, which the other backends do not:
//
//	import _ "github.com/skillstore/skillstore/backends/s3blob"
//
// Credentials come from the AWS SDK's usual chain (environment, shared
// files, instance roles); see gocloud.dev/blob/s3blob for the URL options.
package s3blob

import (
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob" // the gocloud driver

	"github.com/skillstore/skillstore/backends/blobfs"
)

// Scheme is the URL scheme this package registers.
const Scheme = "s3"

func init() {
	blobfs.Register(Scheme, nil)
	blobfs.RegisterTags(blobfs.Tags{Reader: ReaderTag})
}

// ReaderTag is the ETag of the object a GET reads (blobfs.Tags), the one
// a HEAD gives for it while it is unchanged; "" when the store sent none.
func ReaderTag(r *blob.Reader) (string, bool) {
	var out s3.GetObjectOutput
	if !r.As(&out) {
		return "", false
	}
	if out.ETag == nil {
		return "", true
	}
	return *out.ETag, true
}
