// Package azureblob adds Azure Blob Storage to backends.Open (through backends/blobfs), as
// azblob://container?prefix=skills/. Import it for its side effect; it links
// the Azure SDK, which the other backends do not:
//
//	import _ "github.com/skillstore/skillstore/backends/azureblob"
//
// The account and credentials come from AZURE_STORAGE_ACCOUNT and the
// variables gocloud.dev/blob/azureblob documents (a key, a SAS token, a
// connection string, or Azure AD).
package azureblob

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // the gocloud driver

	"github.com/skillstore/skillstore/backends/blobfs"
)

// Scheme is the URL scheme this package registers.
const Scheme = "azblob"

func init() {
	blobfs.Register(Scheme, AuthError)
	blobfs.RegisterTags(blobfs.Tags{Reader: ReaderTag})
}

// ReaderTag is the ETag of the blob a GET (Download) reads (blobfs.Tags),
// the one a HEAD (Get Properties) gives for it while it is unchanged; ""
// when the store sent none.
func ReaderTag(r *blob.Reader) (string, bool) {
	var resp azblobblob.DownloadStreamResponse
	if !r.As(&resp) {
		return "", false
	}
	if resp.ETag == nil {
		return "", true
	}
	return string(*resp.ETag), true
}

// AuthError reports Azure's refusals of credentials, which carry their
// status and code in an *azcore.ResponseError.
func AuthError(err error) bool {
	var az *azcore.ResponseError
	return errors.As(err, &az) && (az.StatusCode == 401 || az.StatusCode == 403 || blobfs.AuthCode(az.ErrorCode))
}
