package store

import (
	"context"
	"io"
)

// ReadOptions change how a View reads a skill. A nil *ReadOptions reads
// the copy of the skill the view serves now, through the file cache.
type ReadOptions struct {
	// Skill pins the read to this copy of the skill, as the view's List,
	// Skill, Search or Catalog gave it, rather than the copy served now:
	// the reads one answer is built from then come from one snapshot of
	// its source, though a refresh lands between them. (A source that
	// keeps no snapshots, a local folder, has one state: its current
	// one.) The name read must be Skill.Name. A copy the view does not
	// include fails as a missing skill does.
	Skill *Skill
	// Uncached is for bulk reads (digests of every file, say): a file in
	// the cache is served from it, but one read from the backend is not
	// added to it, so the reads do not evict hot content.
	Uncached bool
	// Text refuses a binary file with ErrNotText.
	Text bool
}

// pick returns the copy of skill name that a read with opts reads.
func (v *View) pick(ctx context.Context, name string, opts *ReadOptions) (*Skill, error) {
	if opts == nil || opts.Skill == nil {
		return v.Skill(ctx, name)
	}
	if sk := opts.Skill; sk.Name == name && v.Visible(sk) {
		return sk, nil
	}
	return nil, notFound(name)
}

// keep reports whether a read with opts fills the cache.
func (opts *ReadOptions) keep() bool { return opts == nil || !opts.Uncached }

// Document returns the SKILL.md of the skill called name. It fails with
// ErrInvalidName, ErrSkillNotFound, ErrNoSkillDoc, ErrSkillInvalid,
// ErrPermission, ErrTooLarge, ErrInvalidUTF8 or ErrUnavailable.
func (v *View) Document(ctx context.Context, name string, opts *ReadOptions) (Document, error) {
	sk, err := v.pick(ctx, name, opts)
	if err != nil {
		return Document{}, err
	}
	return v.store.document(ctx, sk, opts.keep())
}

// ReadFile returns a file in the folder of the skill called name, text
// or binary. filePath is relative to the skill folder and is cleaned with
// CleanPath; reads never leave the skill folder. The name and path are
// checked before the catalog is consulted, so a bad path in a hidden
// skill fails as it does in a missing one. It fails with the errors of
// Document (except ErrInvalidUTF8) and ErrInvalidPath, ErrPathEscapes,
// ErrFileNotFound and ErrIsDir, and with ErrNotText for a binary file
// read with ReadOptions.Text.
func (v *View) ReadFile(ctx context.Context, name, filePath string, opts *ReadOptions) (File, error) {
	clean, err := v.store.checkFile(name, filePath)
	if err != nil {
		return File{}, err
	}
	sk, err := v.pick(ctx, name, opts)
	if err != nil {
		return File{}, err
	}
	f, err := v.store.fileAt(ctx, sk, clean, filePath, opts.keep())
	if err == nil && f.Binary && opts != nil && opts.Text {
		return File{}, &Error{Kind: ErrNotText, Skill: name, Path: f.Path}
	}
	return f, err
}

// Files lists the regular files in the folder of the skill called name,
// sorted by path, at most MaxFilesPerSkill of them. Hidden files and
// folders (a segment starting with "." not in Options.AllowHidden) are
// left out. Concurrent callers share one walk of a folder, and its
// result, which must not be modified; a caller whose ctx ends stops
// waiting.
func (v *View) Files(ctx context.Context, name string, opts *ReadOptions) ([]FileInfo, error) {
	sk, err := v.pick(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return v.store.files(ctx, sk)
}

// Digest returns the digest of file f of sk (an entry of its Files): from
// the source when it knows it without a read (ContentFS), else from the
// bytes an uncached read of sk's snapshot gives (File.Raw), remembered per
// version of the file (its size and time, and sk's revision), so every
// surface that names a file's digest — the skills extension, the catalog
// pages — names the same one and reads a file once for it. It fails as
// ReadFile does.
func (v *View) Digest(ctx context.Context, sk *Skill, f FileInfo) (Digest, error) {
	if !v.Visible(sk) {
		return Digest{}, notFound(sk.Name)
	}
	return v.store.digest(ctx, sk, f)
}

// Scan returns the hidden text in every text file of sk (as Files lists
// them: hidden files and files over Options.MaxFileSize are left out, and
// so is a file that cannot be read), SKILL.md included, in path order. It
// reads each file from sk's snapshot, without caching it; for a skill
// from a published snapshot it returns the findings the manifest lists,
// which its publisher found reading every file, when they can be trusted
// (PublishedSkill.Scanned). It fails only when the folder cannot be
// listed or ctx ends, or when the view hides sk.
func (v *View) Scan(ctx context.Context, sk *Skill) ([]Finding, error) {
	if !v.Visible(sk) {
		return nil, notFound(sk.Name)
	}
	return v.store.scan(ctx, sk)
}

// WriteZip writes a zip archive of sk's files (an entry per item of
// files, from its Files, in their order) to w: each file's bytes exactly
// as stored (File.Raw: a byte order mark, line endings and the encoding
// kept), deflated unless already compressed (Compressed), under
// opts.Prefix, with SKILL.md under its canonical name (DocName) whatever
// case the source spells it in. Every file is read from sk's snapshot,
// without filling the cache, and streamed: memory is one file's content.
// The archive is deterministic. It fails as ReadFile does, or with
// ErrZipTooLarge; what was written before a failure is not a valid
// archive.
func (v *View) WriteZip(ctx context.Context, w io.Writer, sk *Skill, files []FileInfo, opts ZipOptions) error {
	if !v.Visible(sk) {
		return notFound(sk.Name)
	}
	return v.store.writeZip(ctx, w, sk, files, opts)
}
