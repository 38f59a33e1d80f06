package blobfs

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	published "github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/readall"
)

// PublishBucket is a gocloud.dev/blob bucket as the destination of
// snapshot.Publish (a snapshot.Bucket): each method is one call of the
// bucket's, without BucketFS's timeouts, listing cache or request counts.
// Its errors read as the driver's cause, on one line (the store's error
// code and message, or the network's failure, which may name the store's
// host; see Reason for a phrase that names none), and unwrap to the
// driver's error. The caller closes the bucket.
type PublishBucket struct {
	b   *blob.Bucket
	dir string // a file:// bucket's folder, prefix included (PublishBucketFor); "" for none
}

var _ published.Bucket = (*PublishBucket)(nil)

// NewPublishBucket returns b as a snapshot.Bucket, for snapshot.Publish.
func NewPublishBucket(b *blob.Bucket) *PublishBucket { return &PublishBucket{b: b} }

// Accessible reports whether the bucket exists (blob.Bucket.IsAccessible).
func (p *PublishBucket) Accessible(ctx context.Context) (bool, error) {
	ok, err := p.b.IsAccessible(ctx)
	return ok, describe(err)
}

// ReadObject reads the object at key with one GET: a missing one fails
// with an error matching fs.ErrNotExist ("reading KEY: " and the driver's
// cause), and one over limit with one wrapping snapshot.ErrTooLarge,
// refused by the size the GET reports before its body is read.
func (p *PublishBucket) ReadObject(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := p.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, notExist(err))
	}
	defer r.Close()
	limit = min(limit, math.MaxInt64-1)
	if r.Size() > limit {
		return nil, fmt.Errorf("reading %s: %w: it is %d bytes; the limit is %d", key, published.ErrTooLarge, r.Size(), limit)
	}
	data, err := readall.Read(r, r.Size(), limit)
	if errors.Is(err, readall.ErrTooLarge) {
		return nil, fmt.Errorf("reading %s: %w: it grew past the limit of %d bytes as it was read", key, published.ErrTooLarge, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, notExist(err))
	}
	return data, nil
}

// WriteObject writes everything r yields as the object at key, with
// attrs as blob.WriterOptions; the driver checks attrs.ContentMD5. A
// write whose reader fails is aborted (its context canceled before the
// writer is closed), so nothing is committed.
func (p *PublishBucket) WriteObject(ctx context.Context, key string, r io.Reader, attrs published.ObjectAttrs) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := p.b.NewWriter(ctx, key, &blob.WriterOptions{
		ContentType:  attrs.ContentType,
		CacheControl: attrs.CacheControl,
		ContentMD5:   attrs.ContentMD5,
	})
	if err != nil {
		return describe(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		closeWriter(w)
		return describe(err)
	}
	return describe(closeWriter(w))
}

// errRefused is WriteObject's error when gocloud's azureblob writer
// (v0.47.0) panics as it closes a write the store refused (a content MD5
// that does not match, a condition that failed): its upload goroutine
// clears the pipe the Close it races still closes.
var errRefused = errors.New("the store refused the write")

// closeWriter closes w, turning azureblob's panic on a refused write
// into errRefused.
func closeWriter(w *blob.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errRefused
		}
	}()
	return w.Close()
}

// maxCreateBytes bounds what CreateObject writes: small objects (the
// publish lock), read into memory first.
const maxCreateBytes = 1 << 20

// CreateObject writes a small object (up to 1 MiB) at key unless one is
// there, with blob.WriterOptions.IfNotExist; when one is, it fails with
// an error matching fs.ErrExist (the store answered that the condition
// failed: PreconditionFailed, or S3's ConditionalRequestConflict for a
// conditional write racing another) and naming the key. It reads r
// whole and checks attrs.ContentMD5 itself, then uploads the bytes in
// one call (blob.Bucket.Upload): the streaming writer of gocloud's
// azureblob (v0.47.0) panics closing a write the store refused.
//
// Whether the check and the write are one step is the driver's: they
// are on S3 (If-None-Match: *, honoured by AWS since 2024 and by
// versitygw, which commits under a per-key lock; a store that ignores the
// header overwrites), GCS (ifGenerationMatch=0), Azure Blob Storage
// (If-None-Match: *) and memblob; a file:// bucket from PublishBucketFor
// links a temporary file to the key's name, which fails when one is
// there. fileblob alone (NewPublishBucket over a file:// bucket) checks
// that the file exists, then renames its temporary file over it, so two
// writers on one folder can both succeed, the later one's object winning.
func (p *PublishBucket) CreateObject(ctx context.Context, key string, r io.Reader, attrs published.ObjectAttrs) error {
	data, err := io.ReadAll(io.LimitReader(r, maxCreateBytes+1))
	switch {
	case err != nil:
		return err
	case len(data) > maxCreateBytes:
		return fmt.Errorf("creating %s: over %d bytes", key, maxCreateBytes)
	}
	if sum := md5.Sum(data); attrs.ContentMD5 != nil && !bytes.Equal(sum[:], attrs.ContentMD5) {
		return fmt.Errorf("creating %s: the content does not match its MD5", key)
	}
	if p.dir != "" {
		return p.createLocal(key, data)
	}
	opts := &blob.WriterOptions{ContentType: attrs.ContentType, CacheControl: attrs.CacheControl, IfNotExist: true}
	if opts.ContentType == "" {
		opts.ContentType = "application/octet-stream" // Upload requires one
	}
	err = p.b.Upload(ctx, key, bytes.NewReader(data), opts)
	if err != nil && (conditionFailed(err) || storeCode(err) == "ConditionalRequestConflict") {
		return existError{key, err}
	}
	return describe(err)
}

// WalkObjects lists the objects under prefix (pages of up to 1,000 keys,
// one LIST each) and calls fn for each.
func (p *PublishBucket) WalkObjects(ctx context.Context, prefix string, fn func(published.ObjectInfo) error) error {
	iter := p.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return describe(err)
		}
		if o.IsDir {
			continue
		}
		if err := fn(published.ObjectInfo{Key: o.Key, Size: o.Size, ModTime: o.ModTime}); err != nil {
			return err
		}
	}
}

// DeleteObject deletes the object at key (blob.Bucket.Delete).
func (p *PublishBucket) DeleteObject(ctx context.Context, key string) error {
	return describe(p.b.Delete(ctx, key))
}

// existError is a conditional write's error when its key holds an
// object: it names the key, not the driver's words (fileblob's name the
// file's path on the machine), and matches fs.ErrExist.
type existError struct {
	key string
	err error
}

func (e existError) Error() string        { return e.key + ": an object is already there" }
func (e existError) Unwrap() error        { return e.err }
func (e existError) Is(target error) bool { return target == fs.ErrExist }

// conditionFailed reports whether err is a driver's FailedPrecondition.
// gocloud gives its own refusals (a content MD5 that does not match, a
// closed bucket) that code too, with no driver error beneath: its error
// unwraps to the driver's, if any, and to the code's sentinel.
func conditionFailed(err error) bool {
	if gcerrors.Code(err) != gcerrors.FailedPrecondition {
		return false
	}
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return errors.Unwrap(err) != nil
	}
	for _, e := range u.Unwrap() {
		if e != nil && e != gcerrors.ErrFailedPrecondition {
			return true
		}
	}
	return false
}

// notExistError is a bucket's not-found error, by its cause, that also
// matches fs.ErrNotExist.
type notExistError struct{ err error }

func (e notExistError) Error() string        { return cause(e.err) }
func (e notExistError) Unwrap() error        { return e.err }
func (e notExistError) Is(target error) bool { return target == fs.ErrNotExist }

// notExist makes err match fs.ErrNotExist when the driver says NotFound,
// and reads as its cause either way.
func notExist(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return notExistError{err}
	}
	return describe(err)
}
