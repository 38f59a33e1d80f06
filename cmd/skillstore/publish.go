package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

func publishCmd(g *globals) *cobra.Command {
	var pf publishFlags
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
			return runPublish(cmd.Context(), g, args[0], args[1], pf)
		},
	}
	f := cmd.Flags()
	f.IntVar(&pf.opts.Keep, "keep", 5, "snapshots that stay readable, the new one included; older ones and the content only they use are removed")
	f.DurationVar(&pf.opts.Grace, "grace", snapshot.DefaultGrace, "never remove snapshots or content younger than this (replicas move to a new snapshot at their next refresh)")
	f.BoolVar(&pf.opts.DeleteOutside, "delete", false, "also remove objects under the prefix outside the snapshot store (files of the older per-path layout)")
	f.BoolVar(&pf.opts.DryRun, "dry-run", false, "print what would change and change nothing")
	f.BoolVar(&pf.force, "force", false, "publish even if some skills break the specification")
	f.BoolVar(&pf.quiet, "quiet", false, "print nothing but errors")
	f.BoolVar(&pf.opts.BreakLock, "break-lock", false, "take the folder's publish lock even from a publish that still holds it: only when that publish no longer runs (its process was killed); a publish found holding it anyway stops before it changes the snapshot served")
	f.StringVar(&pf.sign, "sign", "", "sign the snapshot's manifest with the SSH private key `KEY` (SSHSIG, namespace skillstore-snapshot; a key with a passphrase is used through ssh-agent), so servers with --trusted-signers serve it")
	return cmd
}

// publishFlags are publish's flags: --force and --quiet, and the rest as
// the writer's options.
type publishFlags struct {
	force, quiet bool
	sign         string
	opts         snapshot.PublishOptions
}

// runPublish validates the skills in dir and publishes them to url,
// printing progress, warnings and a summary (unless quiet).
func runPublish(ctx context.Context, g *globals, dir, url string, pf publishFlags) error {
	opts := pf.opts
	if pf.sign != "" {
		signer, done, err := signingKey(backends.ExpandHome(pf.sign))
		if err != nil {
			return err
		}
		defer done()
		if err := sshsig.CheckKey(signer.PublicKey()); err != nil {
			return fmt.Errorf("--sign %s: %w", filepath.Base(pf.sign), err)
		}
		opts.Signer = signer
	}
	local, err := backends.OpenLocal(backends.ExpandHome(dir))
	if err != nil {
		return fmt.Errorf("skills folder %s: %w", dir, stripHost(err))
	}
	defer local.Close()
	skills, err := publishable(ctx, local, pf.force, g.stderr)
	if err != nil {
		return err
	}
	b, shown, err := blobfs.OpenBucket(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	opts.MaxFileSize = g.maxFileSize
	opts.Observer = newProgress(g.stdout, g.stderr, pf.quiet, g.maxFileSize)
	r, err := publish(ctx, local, skills, b, opts)
	if err != nil {
		return fmt.Errorf("publishing to %s: %w", shown, err)
	}
	if !pf.quiet {
		verb := ""
		if opts.DryRun {
			verb = " (dry run: nothing was changed)"
		}
		signed := ""
		if opts.Signer != nil {
			signed = ", signed by " + sshsig.Fingerprint(opts.Signer.PublicKey())
		}
		fmt.Fprintf(g.stdout, "%s: snapshot %s (sequence %d%s), %d skills, %d files: %d uploaded (%s), %d already stored; %d snapshots kept, %d removed%s\n",
			shown, r.Snapshot, r.Sequence, signed, r.Skills, r.Files, r.Uploaded, store.FormatSize(r.UploadedBytes), r.Unchanged, r.Kept, r.Removed, verb)
	}
	return nil
}

// publish is snapshot.Publish in the command's words: --keep is checked
// first, and a bucket that cannot be reached is described without its
// driver's words, which may name hosts.
func publish(ctx context.Context, src fs.FS, skills []snapshot.SkillFiles, b *blob.Bucket, opts snapshot.PublishOptions) (snapshot.Report, error) {
	if opts.Keep < 1 {
		return snapshot.Report{}, errors.New("--keep must be at least 1: the new snapshot is kept")
	}
	r, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(b), opts)
	if ue := (*snapshot.UnreachableError)(nil); errors.As(err, &ue) {
		err = &snapshot.UnreachableError{Err: errors.New(blobfs.Reason(ue.Err))}
	}
	return r, err
}

// publishable validates the skills in fsys and returns them, with the
// files each holds (hidden files left out). Skills that break the
// specification stop the publish unless force is set.
func publishable(ctx context.Context, fsys fs.FS, force bool, stderr io.Writer) ([]snapshot.SkillFiles, error) {
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
	var skills []snapshot.SkillFiles
	for _, sk := range c.Skills {
		fis, err := s.Files(ctx, sk.Name)
		if err != nil {
			return nil, err
		}
		ps := snapshot.SkillFiles{Dir: sk.Name, DocPath: sk.DocPath}
		for _, fi := range fis {
			ps.Files = append(ps.Files, fi.Path)
		}
		skills = append(skills, ps)
	}
	if len(skills) == 0 {
		return nil, errors.New("no skills to publish: the folder holds no skill folder with a SKILL.md")
	}
	return skills, nil
}

// progress shows a publish (a snapshot.Observer): a bar on a terminal, a
// line per uploaded file otherwise, nothing when quiet. Warnings always go
// out.
type progress struct {
	w, errw      io.Writer
	bar, quiet   bool
	limit        int64 // --max-file-size, for the warning of a file over it
	total, count int
	bytes        int64
}

var (
	_ snapshot.Observer     = (*progress)(nil)
	_ snapshot.LockObserver = (*progress)(nil)
)

func newProgress(w, errw io.Writer, quiet bool, limit int64) *progress {
	p := &progress{w: w, errw: errw, quiet: quiet, limit: limit}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.bar = true
		}
	}
	return p
}

func (p *progress) Start(total int) { p.total = total }

// File shows one file read (and uploaded, when uploaded is set).
func (p *progress) File(name string, size int64, uploaded bool) {
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

func (p *progress) OverLimit(name string, size int64) {
	p.warn(fmt.Sprintf("%s is %s, over the serving limit of %s (--max-file-size): servers will refuse to read it",
		name, store.FormatSize(size), store.FormatSize(p.limit)))
}

// FilesDone ends the bar's line.
func (p *progress) FilesDone() {
	if p.bar && !p.quiet && p.count > 0 {
		fmt.Fprintln(p.w)
	}
}

// LockTakenOver warns that this publish took another's lock
// (snapshot.LockObserver).
func (p *progress) LockTakenOver(held snapshot.Lock, expired bool) {
	switch {
	case held.ID == "":
		p.warn("broke the folder's publish lock, which this version cannot read (--break-lock)")
	case expired:
		p.warn(fmt.Sprintf("took over the publish lock of %s, which expired at %s: that publish stopped without removing it", held, held.Until.UTC().Format(time.RFC3339)))
	default:
		p.warn(fmt.Sprintf("broke the publish lock of %s (--break-lock): if that publish still runs, it stops before it changes the snapshot served", held))
	}
}

func (p *progress) RemovingSnapshot(id string) { p.line("remove  snapshot " + id) }

func (p *progress) DeletingObject(key string) { p.line("delete  " + key) }

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
