package blobfs

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
)

// PublishBucketFor returns b, opened from rawURL by OpenBucket, as a
// snapshot.Bucket: NewPublishBucket's, but for a file:// destination (a
// shared disk, NFS) CreateObject creates its object with a hard link
// (link(2) fails when the name exists, on one step, NFS included), so of
// two publishes creating the lock at once exactly one succeeds, as on
// S3, GCS and Azure. fileblob alone checks that the file is absent, then
// renames over it.
func PublishBucketFor(b *blob.Bucket, rawURL string) *PublishBucket {
	p := NewPublishBucket(b)
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Path == "" {
		return p
	}
	p.dir = filepath.Join(filepath.FromSlash(u.Path), filepath.FromSlash(bucketPrefix(u.Query())))
	return p
}

// createLocal writes data as key under p.dir unless a file is there: to
// a temporary file beside it, then linked to key's name. Its errors name
// key, never the folder.
func (p *PublishBucket) createLocal(key string, data []byte) error {
	if !fs.ValidPath(key) || path.Base(key) == "." {
		return fmt.Errorf("creating %s: not a valid key", key)
	}
	name := filepath.Join(p.dir, filepath.FromSlash(key))
	fail := func(err error) error {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		} else if le := (*os.LinkError)(nil); errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("creating %s: %w", key, err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	if err := os.Link(tmp.Name(), name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return existError{key, err}
		}
		return fail(err)
	}
	return nil
}
