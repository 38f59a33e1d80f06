package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/search"
	"github.com/skillstore/skillstore/store"
)

func publishCmd(g *globals) *cobra.Command {
	var opts publishOptions
	cmd := &cobra.Command{
		Use:   "publish DIR URL",
		Short: "Validate the skills in DIR and publish them as a snapshot to object storage or a shared folder",
		Long: `publish checks every skill in DIR against the Agent Skills specification, then
publishes them to URL (s3://, gs://, azblob://, with ?prefix=…, or file:///shared/dir) as an
immutable snapshot: a manifest of every skill's frontmatter and every file's size and digests,
and each file's content stored once under its SHA-256, so unchanged files are not uploaded again.
A small pointer object names the current snapshot; servers switch to it at their next refresh.
The last --keep snapshots stay readable; older ones, and content only they used, are removed.
Everything about a file comes from one read of it. Hidden files and folders (names starting with
".") are not published.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			local, err := backends.OpenLocal(backends.ExpandHome(args[0]))
			if err != nil {
				return fmt.Errorf("skills folder %s: %w", args[0], stripHost(err))
			}
			defer local.Close()
			skills, err := publishable(ctx, local, opts.force, g.stderr)
			if err != nil {
				return err
			}
			b, shown, err := blobfs.OpenBucket(ctx, args[1])
			if err != nil {
				return err
			}
			defer b.Close()
			opts.maxFileSize = g.maxFileSize
			p := newProgress(g.stdout, g.stderr, opts.quiet)
			r, err := publish(ctx, local, skills, b, opts, p)
			if err != nil {
				return fmt.Errorf("publishing to %s: %w", shown, err)
			}
			if !opts.quiet {
				verb := ""
				if opts.dryRun {
					verb = " (dry run: nothing was changed)"
				}
				fmt.Fprintf(g.stdout, "%s: snapshot %s, %d skills, %d files: %d uploaded (%s), %d already stored; %d snapshots kept, %d removed%s\n",
					shown, r.snapshot, r.skills, r.files, r.uploaded, store.FormatSize(r.uploadedBytes), r.unchanged, r.kept, r.collected, verb)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.keep, "keep", 5, "snapshots that stay readable, the new one included; older ones and the content only they use are removed")
	f.DurationVar(&opts.grace, "grace", collectGrace, "never remove snapshots or content younger than this (replicas move to a new snapshot at their next refresh)")
	f.BoolVar(&opts.delete, "delete", false, "also remove objects under the prefix outside the snapshot store (files of the older per-path layout)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would change and change nothing")
	f.BoolVar(&opts.force, "force", false, "publish even if some skills break the specification")
	f.BoolVar(&opts.quiet, "quiet", false, "print nothing but errors")
	return cmd
}

type publishOptions struct {
	delete, dryRun, force, quiet bool
	keep                         int
	grace                        time.Duration // see collectGrace
	maxFileSize                  int64
}

type publishReport struct {
	snapshot                  string
	skills, files             int
	uploaded, unchanged       int
	uploadedBytes             int64
	kept, collected, outsider int
}

// publishable validates the skills in fsys and returns them, with the
// files each holds (hidden files left out). Skills that break the
// specification stop the publish unless force is set.
func publishable(ctx context.Context, fsys fs.FS, force bool, stderr io.Writer) ([]publishSkill, error) {
	s, err := store.New([]store.Source{{Label: "publish", Location: ".", FS: fsys}}, store.Options{MaxFileSize: 1 << 40, CacheBytes: -1})
	if err != nil {
		return nil, err
	}
	c, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	// Folders without a SKILL.md are not skills: warn and leave them out.
	var blocking []store.Problem
	for _, p := range c.Problems {
		if errors.Is(p.Err(), store.ErrNoSkillDoc) {
			fmt.Fprintf(stderr, "skillstore: skipping %s: no SKILL.md\n", p.Skill)
			continue
		}
		blocking = append(blocking, p)
	}
	out := catalogJSON(c)
	out.Problems = blocking
	invalid := len(blocking) > 0
	for _, sk := range out.Skills {
		invalid = invalid || !sk.Valid
	}
	if invalid && !force {
		out.Valid = false
		printValidation(stderr, out)
		return nil, errors.New("some skills break the Agent Skills specification; fix them (see above) or pass --force")
	}
	var skills []publishSkill
	for _, sk := range c.Skills {
		fis, err := s.Files(ctx, sk.Name)
		if err != nil {
			return nil, err
		}
		ps := publishSkill{dir: sk.Name, docPath: sk.DocPath}
		for _, fi := range fis {
			ps.files = append(ps.files, fi.Path)
		}
		skills = append(skills, ps)
	}
	if len(skills) == 0 {
		return nil, errors.New("no skills to publish: the folder holds no skill folder with a SKILL.md")
	}
	return skills, nil
}

// publishSkill is one skill to publish: its folder, document and files.
type publishSkill struct {
	dir, docPath string
	files        []string
}

// spoolLimit is the largest file kept in memory between its read and its
// upload; larger ones wait in a temporary file, so memory stays bounded.
const spoolLimit = 4 << 20

// spooled is one file as read once: its digests, and its bytes (in memory
// or in a temporary file) for the upload.
type spooled struct {
	file snapshot.File
	data []byte   // the bytes, when small
	temp *os.File // the bytes, when large
}

func (sp *spooled) reader() (io.Reader, error) {
	if sp.temp == nil {
		return bytes.NewReader(sp.data), nil
	}
	_, err := sp.temp.Seek(0, io.SeekStart)
	return sp.temp, err
}

// bytes returns the spooled bytes, read back from the temporary file
// when they were spooled to disk (a file over spoolLimit).
func (sp *spooled) bytes() ([]byte, error) {
	if sp.temp == nil {
		return sp.data, nil
	}
	return os.ReadFile(sp.temp.Name())
}

func (sp *spooled) close() {
	if sp.temp != nil {
		sp.temp.Close()
		os.Remove(sp.temp.Name())
	}
}

// spool reads name from fsys once, computing its size, SHA-256 and MD5
// and keeping its bytes for the upload.
func spool(fsys fs.FS, name string) (*spooled, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	sha, sum := sha256.New(), md5.New()
	sp := &spooled{}
	var w io.Writer
	var buf bytes.Buffer
	if fi.Size() <= spoolLimit {
		w = &buf
	} else {
		if sp.temp, err = os.CreateTemp("", "skillstore-publish-*"); err != nil {
			return nil, err
		}
		w = sp.temp
	}
	n, err := io.Copy(io.MultiWriter(w, sha, sum), f)
	if err != nil {
		sp.close()
		return nil, err
	}
	sp.data = buf.Bytes()
	sp.file = snapshot.File{Size: n, ModTime: fi.ModTime().UTC(), SHA256: hexOf(sha), MD5: hexOf(sum)}
	return sp, nil
}

func hexOf(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// publish writes skills from fsys to b as a new snapshot: each file's
// content under its SHA-256 (skipped when already there), the manifest,
// then the pointer, which switches readers to it at once; then it removes
// snapshots beyond opts.keep and content only they used.
func publish(ctx context.Context, fsys fs.FS, skills []publishSkill, b *blob.Bucket, opts publishOptions, p *progress) (publishReport, error) {
	var r publishReport
	if opts.keep < 1 {
		return r, errors.New("--keep must be at least 1: the new snapshot is kept")
	}
	if ok, err := b.IsAccessible(ctx); err != nil || !ok {
		// gocloud's Azure writer panics on a missing container: check first.
		why := "it does not exist; create it first"
		if err != nil {
			why = "it cannot be reached: " + blobfs.Reason(err)
		}
		return r, errors.New("the bucket or container cannot be written: " + why)
	}
	stored, err := listKeys(ctx, b, snapshot.Dir+"/blobs/")
	if err != nil {
		return r, err
	}
	m := snapshot.Manifest{Version: snapshot.Version, Published: time.Now().UTC()}
	total := 0
	for _, sk := range skills {
		total += len(sk.files)
	}
	p.start(total)
	for _, sk := range skills {
		ms := snapshot.Skill{Dir: sk.dir, DocPath: sk.docPath}
		for _, rel := range sk.files {
			name := sk.dir + "/" + rel
			sp, err := spool(fsys, name)
			if err != nil {
				return r, fmt.Errorf("reading %s: %w", name, stripHost(err))
			}
			f := sp.file
			f.Path = rel
			servable := opts.maxFileSize <= 0 || f.Size <= opts.maxFileSize
			var data []byte // the bytes, read back once if spooled to disk
			if rel == sk.docPath || servable {
				if data, err = sp.bytes(); err != nil {
					sp.close()
					return r, fmt.Errorf("reading %s back from its temporary copy: %w", name, stripHost(err))
				}
			}
			if rel == sk.docPath {
				fm, _, err := store.ParseFrontmatter(string(data))
				if err != nil {
					sp.close()
					return r, fmt.Errorf("%s changed while publishing: %w", name, err)
				}
				ms.Frontmatter = fm.Raw // from the same bytes as the digests
				ms.Headings = headings(string(data))
			}
			if !servable {
				p.warn(fmt.Sprintf("%s is %s, over the serving limit of %s (--max-file-size): servers will refuse to read it",
					name, store.FormatSize(f.Size), store.FormatSize(opts.maxFileSize)))
			} else if text, _, ok := store.DecodeText(data); ok && text != string(data) {
				f.Served, f.ServedSize = snapshot.Sum([]byte(text)), int64(len(text))
			}
			key := snapshot.BlobKey(f.SHA256)
			have, ok := stored[key]
			uploaded := !ok || have.size != f.Size // a truncated blob is replaced
			if !uploaded {
				r.unchanged++
			} else {
				stored[key] = listed{f.Size, time.Now()}
				r.uploaded++
				r.uploadedBytes += f.Size
				if !opts.dryRun {
					if err := upload(ctx, b, key, sp, f); err != nil {
						sp.close()
						return r, fmt.Errorf("uploading %s: %w", name, err)
					}
				}
			}
			sp.close()
			p.file(name, f.Size, uploaded)
			ms.Files = append(ms.Files, f)
			r.files++
		}
		sort.Slice(ms.Files, func(i, j int) bool { return ms.Files[i].Path < ms.Files[j].Path })
		m.Skills = append(m.Skills, ms)
		r.skills++
	}
	p.done()
	sort.Slice(m.Skills, func(i, j int) bool { return m.Skills[i].Dir < m.Skills[j].Dir })
	body, err := json.Marshal(m)
	if err != nil {
		return r, err
	}
	sum := snapshot.Sum(body)
	m.ID = m.Published.Format("20060102T150405.000000000Z") + "-" + sum[:12]
	if body, err = json.Marshal(m); err != nil { // with its ID
		return r, err
	}
	r.snapshot = m.ID
	pointer, err := json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(body), Published: m.Published})
	if err != nil {
		return r, err
	}
	if opts.dryRun {
		return r, nil
	}
	if err := b.WriteAll(ctx, snapshot.ManifestKey(m.ID), body, &blob.WriterOptions{ContentType: "application/json"}); err != nil {
		return r, fmt.Errorf("writing the manifest: %w", err)
	}
	// The pointer last: readers switch to a snapshot whose content is all there.
	if err := b.WriteAll(ctx, snapshot.PointerKey, pointer, &blob.WriterOptions{ContentType: "application/json", CacheControl: "no-cache"}); err != nil {
		return r, fmt.Errorf("writing the snapshot pointer: %w", err)
	}
	if err := collect(ctx, b, &m, opts, &r, p); err != nil {
		return r, err
	}
	return r, nil
}

// upload writes one file's content from its spool under key.
func upload(ctx context.Context, b *blob.Bucket, key string, sp *spooled, f snapshot.File) error {
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	sum, _ := hex.DecodeString(f.MD5)
	w, err := b.NewWriter(ctx, key, &blob.WriterOptions{ContentMD5: sum, ContentType: "application/octet-stream"})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rd); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// listed is what a listing says of an object.
type listed struct {
	size    int64
	modTime time.Time
}

// listKeys lists the keys under prefix.
func listKeys(ctx context.Context, b *blob.Bucket, prefix string) (map[string]listed, error) {
	keys := map[string]listed{}
	iter := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing the bucket: %w", err)
		}
		if !o.IsDir {
			keys[o.Key] = listed{o.Size, o.ModTime}
		}
	}
}

// collectGrace is --grace's default: what is younger is never collected —
// the snapshots replicas may still be pinned to (they move on at their
// next refresh), and content another publish may have just uploaded.
const collectGrace = 15 * time.Minute

// collect removes the snapshots beyond opts.keep, newest first, and the
// content no kept snapshot uses; with opts.delete, also every object
// outside the snapshot store. It never removes the snapshot the pointer
// names now (another publish may have moved it), one newer than ours, or
// anything younger than opts.grace. Two publishes to one prefix at once
// are not supported: one may skip uploading content the other collects.
func collect(ctx context.Context, b *blob.Bucket, current *snapshot.Manifest, opts publishOptions, r *publishReport, p *progress) error {
	manifests, err := listKeys(ctx, b, snapshot.Dir+"/snapshots/")
	if err != nil {
		return err
	}
	live := current.ID
	if data, err := b.ReadAll(ctx, snapshot.PointerKey); err == nil {
		var ptr snapshot.Pointer
		if json.Unmarshal(data, &ptr) == nil && ptr.Snapshot != "" {
			live = ptr.Snapshot
		}
	}
	var ids []string
	for key := range manifests {
		if id, ok := strings.CutSuffix(path.Base(key), ".json"); ok && key == snapshot.ManifestKey(id) {
			ids = append(ids, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids))) // IDs start with their time: newest first
	used := map[string]bool{}
	for _, f := range allFiles(current) {
		used[snapshot.BlobKey(f.SHA256)] = true
	}
	var gone []string
	kept := 1 // the current snapshot
	for _, id := range ids {
		if id == current.ID {
			continue
		}
		young := time.Since(manifests[snapshot.ManifestKey(id)].modTime) < opts.grace
		if kept >= opts.keep && id != live && id < current.ID && !young {
			gone = append(gone, id)
			continue
		}
		data, err := b.ReadAll(ctx, snapshot.ManifestKey(id))
		if err != nil {
			return fmt.Errorf("reading snapshot %s: %w", id, err)
		}
		var m snapshot.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			if id != live && !young {
				gone = append(gone, id) // unreadable: of no use to a reader
			}
			continue
		}
		kept++
		for _, f := range allFiles(&m) {
			used[snapshot.BlobKey(f.SHA256)] = true
		}
	}
	r.kept = kept
	for _, id := range gone {
		p.line("remove  snapshot " + id)
		if err := b.Delete(ctx, snapshot.ManifestKey(id)); err != nil {
			return fmt.Errorf("removing snapshot %s: %w", id, err)
		}
		r.collected++
	}
	blobs, err := listKeys(ctx, b, snapshot.Dir+"/blobs/")
	if err != nil {
		return err
	}
	for key, o := range blobs {
		if !used[key] && time.Since(o.modTime) >= opts.grace {
			if err := b.Delete(ctx, key); err != nil {
				return fmt.Errorf("removing %s: %w", key, err)
			}
		}
	}
	if opts.delete {
		all, err := listKeys(ctx, b, "")
		if err != nil {
			return err
		}
		for key := range all {
			if !strings.HasPrefix(key, snapshot.Dir+"/") {
				p.line("delete  " + key)
				if err := b.Delete(ctx, key); err != nil {
					return fmt.Errorf("deleting %s: %w", key, err)
				}
				r.outsider++
			}
		}
	}
	return nil
}

func allFiles(m *snapshot.Manifest) []snapshot.File {
	var out []snapshot.File
	for _, sk := range m.Skills {
		out = append(out, sk.Files...)
	}
	return out
}

// progress reports a publish: a bar on a terminal, a line per uploaded
// file otherwise, nothing when quiet. Warnings always go out.
type progress struct {
	w, errw      io.Writer
	bar, quiet   bool
	total, count int
	bytes        int64
}

func newProgress(w, errw io.Writer, quiet bool) *progress {
	p := &progress{w: w, errw: errw, quiet: quiet}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.bar = true
		}
	}
	return p
}

func (p *progress) start(total int) { p.total = total }

// file records one file read (and uploaded, when uploaded is set).
func (p *progress) file(name string, size int64, uploaded bool) {
	p.count++
	p.bytes += size
	switch {
	case p.quiet:
	case p.bar:
		const width = 30
		done := width * p.count / max(p.total, 1)
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d files, %s", strings.Repeat("#", done), strings.Repeat(".", width-done), p.count, p.total, store.FormatSize(p.bytes))
	case uploaded:
		fmt.Fprintf(p.w, "upload  %s (%d bytes)\n", name, size)
	}
}

func (p *progress) done() {
	if p.bar && !p.quiet && p.count > 0 {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) line(s string) {
	if !p.quiet {
		if p.bar {
			fmt.Fprint(p.w, "\r")
		}
		fmt.Fprintln(p.w, s)
	}
}

// warn says something the user must know, quiet or not.
func (p *progress) warn(s string) {
	if p.bar && !p.quiet {
		fmt.Fprint(p.w, "\r")
	}
	fmt.Fprintln(p.errw, "skillstore: warning:", s)
}

// headings are a document's Markdown headings, one a line, cut at a line
// to snapshot.MaxHeadingsBytes: what a server searches besides the name
// and description of a published skill.
func headings(doc string) string {
	_, body, err := store.SplitDocument(doc)
	if err != nil {
		return ""
	}
	h := search.SkillDoc("", "", "", body).Fields[search.Headings]
	if len(h) > snapshot.MaxHeadingsBytes {
		h = h[:strings.LastIndexByte(h[:snapshot.MaxHeadingsBytes], '\n')+1]
	}
	return h
}
