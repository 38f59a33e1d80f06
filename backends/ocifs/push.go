package ocifs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
)

// The artifact Push writes, and the media types it uses:
//
//	manifest      application/vnd.oci.image.manifest.v1+json (image-spec 1.1)
//	artifactType  ArtifactType
//	config        application/vnd.oci.empty.v1+json ({})
//	layer         application/vnd.oci.image.layer.v1.tar+gzip: every skill
//	              folder at the archive's root, files only, sorted, owned
//	              by 0:0, mode 0644, time 2000-01-01 (the same files give
//	              the same layer, and so the same digest)
//
// This package reads it, as it reads the other skill artifacts and plain
// images (see the package's documentation).
const (
	// ArtifactType is the artifact type of what Push writes.
	ArtifactType = "application/vnd.skillstore.skills.v1"
)

// pushTime is every file's time in a pushed layer.
var pushTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// PushResult is what Push pushed.
type PushResult struct {
	Digest string // the manifest's
	Layer  int64  // the layer's size
	Files  int
}

// Push writes the files of fsys named by paths (each a skill's folder,
// then its path in it) as one layer of a skills artifact, and tags its
// manifest with the reference rawURL names (oci://REGISTRY/REPO:TAG). A
// blob the registry holds already is not uploaded again. The layer is
// built in memory: bounded by Options.MaxBytes.
func Push(ctx context.Context, rawURL string, fsys fs.FS, paths []string, opts Options) (PushResult, error) {
	f, err := Open(rawURL, opts)
	if err != nil {
		return PushResult{}, err
	}
	return f.Push(ctx, fsys, paths)
}

// Push is the package's Push to the reference f names.
func (f *FS) Push(ctx context.Context, fsys fs.FS, paths []string) (PushResult, error) {
	if f.pin {
		return PushResult{}, ErrPinned
	}
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.ModTime = pushTime
	tw := tar.NewWriter(gz)
	var total int64
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return PushResult{}, fmt.Errorf("reading %s: %w", p, err)
		}
		if total += cost(p, int64(len(data))); total > f.opts.MaxBytes {
			return PushResult{}, fmt.Errorf("the skills and their names add up to over %d bytes, more than a source reads", f.opts.MaxBytes)
		}
		h := &tar.Header{Name: p, Mode: 0o644, Size: int64(len(data)), ModTime: pushTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return PushResult{}, err
		}
		if _, err := tw.Write(data); err != nil {
			return PushResult{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return PushResult{}, err
	}
	if err := gz.Close(); err != nil {
		return PushResult{}, err
	}
	layer := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromBytes(buf.Bytes()), Size: int64(buf.Len()),
		Annotations: map[string]string{ocispec.AnnotationTitle: "skills.tar.gz"}}
	if err := pushBlob(ctx, f, layer, buf.Bytes()); err != nil {
		return PushResult{}, f.fail("pushing a layer to", err)
	}
	desc, err := oras.PackManifest(ctx, f.repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		return PushResult{}, f.fail("pushing the manifest to", err)
	}
	if err := f.repo.Tag(ctx, desc, f.ref); err != nil {
		return PushResult{}, f.fail("tagging", err)
	}
	return PushResult{Digest: desc.Digest.String(), Layer: layer.Size, Files: len(paths)}, nil
}

// ErrPinned is Push's error for a digest reference.
var ErrPinned = errors.New("publish to a tag (oci://REGISTRY/REPOSITORY:TAG), not a digest: a digest names what exists")

// Pinned reports whether f names a digest, which never changes.
func (f *FS) Pinned() bool { return f.pin }

// pushBlob uploads a blob unless the registry has it.
func pushBlob(ctx context.Context, f *FS, desc ocispec.Descriptor, data []byte) error {
	if ok, err := f.repo.Blobs().Exists(ctx, desc); err == nil && ok {
		return nil
	}
	return f.repo.Blobs().Push(ctx, desc, io.Reader(bytes.NewReader(data)))
}
