package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/ocifs"
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
Everything about a file comes from one read of it; a file whose size and modification time match
the current snapshot's entry is not read again (--checksum reads every file). --transfers files
are read and uploaded at once. Hidden files and folders (names starting with ".") are not
published.`,
		Args: usageArgs(cobra.ExactArgs(2)),
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
	f.IntVar(&pf.opts.Transfers, "transfers", snapshot.DefaultTransfers, "files read and uploaded at once")
	f.BoolVar(&pf.opts.Checksum, "checksum", false, "read every file, even those whose size and modification time match the current snapshot's (after raising --max-file-size, say)")
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
	if os.Getenv("GOGC") == "" {
		// A publish holds the new manifest, the previous one and the
		// bucket's blob set (about 150 MB at 100,000 skills): collected at
		// half the default growth, its peak stays near 1.5 times that, not
		// twice, for a few percent more CPU in a run bound by I/O.
		defer debug.SetGCPercent(debug.SetGCPercent(publishGC))
	}
	opts := pf.opts
	if opts.Transfers < 1 {
		return errors.New("--transfers must be at least 1")
	}
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
		if g.trusted != "" {
			if opts.Trusted, err = readTrusted(g.trusted); err != nil {
				return err
			}
		}
	}
	local, err := backends.OpenLocal(backends.ExpandHome(dir))
	if err != nil {
		return fmt.Errorf("skills folder %s: %w", dir, stripHost(err))
	}
	defer local.Close()
	p := newProgress(g.stdout, g.stderr, pf.quiet, g.maxFileSize, time.Now)
	p.status("validating the skills in " + dir + "…")
	defer p.status("") // on failure, before the error is printed
	skills, plugins, err := publishable(ctx, local, pf.force, clearing{p})
	if err != nil {
		return err
	}
	if strings.HasPrefix(strings.ToLower(url), "oci://") {
		return publishOCI(ctx, g, local, skills, plugins, url, pf)
	}
	if len(plugins) > 0 {
		return fmt.Errorf("%s holds Agent Plugins (%s): a published snapshot lists skill folders, not plugins; publish them to an OCI registry (skillstore publish DIR oci://…), or copy the folder to the bucket as it is, which is served as plugins without a snapshot", dir, pluginNames(plugins))
	}
	b, shown, err := blobfs.OpenBucket(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	opts.MaxFileSize = g.maxFileSize
	opts.Observer = p
	r, err := publish(ctx, local, skills, blobfs.PublishBucketFor(b, url), opts)
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
		fmt.Fprintf(g.stdout, "%s: snapshot %s (sequence %d%s), %d skills, %d files: %d uploaded (%s), %d already stored, %d unchanged and not read; %d snapshots kept, %d removed%s\n",
			shown, r.Snapshot, r.Sequence, signed, r.Skills, r.Files, r.Uploaded, store.FormatSize(r.UploadedBytes), r.Unchanged, r.Reused, r.Kept, r.Removed, verb)
	}
	return nil
}

// publishOCI pushes the skills to an OCI registry as one artifact
// (ocifs.Push), tagged as url says. A snapshot's --keep, --grace and
// --delete are the registry's business there (its retention), and --sign
// is not offered for it.
func publishOCI(ctx context.Context, g *globals, local fs.FS, skills []snapshot.SkillFiles, plugins []store.FoundGroup, url string, pf publishFlags) error {
	if pf.sign != "" {
		return errors.New("--sign is not offered for an OCI registry: sign the artifact with your registry's tools (cosign, notation)")
	}
	paths, err := publishPaths(local, skills, plugins)
	if err != nil {
		return err
	}
	target, err := ocifs.Open(url, ocifs.Options{}) // the reference checked, and shown without what it must not hold
	if err != nil {
		return err
	}
	shown := target.Location()
	if target.Pinned() {
		return ocifs.ErrPinned
	}
	if pf.opts.DryRun {
		if !pf.quiet {
			fmt.Fprintf(g.stdout, "%s: would push %d skills, %d files as one layer (dry run: nothing was changed)\n", shown, len(skills), len(paths))
		}
		return nil
	}
	r, err := target.Push(ctx, local, paths)
	if err != nil {
		return err
	}
	if !pf.quiet {
		fmt.Fprintf(g.stdout, "%s: pushed %s (%s), %d skills, %d files in a layer of %s\n", shown, r.Digest, ocifs.ArtifactType, len(skills), r.Files, humanSize(r.Layer))
	}
	return nil
}

// maxPluginFiles bounds the files of one plugin that publish and bundle
// carry.
const maxPluginFiles = 10_000

// publishPaths lists the files publish and bundle carry, as paths from
// the folder that holds them: each skill's files, and each plugin whole
// (its plugin.json, mcp.json and every other component; hidden files,
// special files and links to folders left out), listed through the
// plugin's own folder, so a link out of it fails the publish.
func publishPaths(fsys fs.FS, skills []snapshot.SkillFiles, plugins []store.FoundGroup) ([]string, error) {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, sk := range skills {
		for _, f := range sk.Files {
			add(path.Join(sk.Dir, f))
		}
	}
	for _, pl := range plugins {
		sub, err := fs.Sub(fsys, pl.Dir)
		if err != nil {
			return nil, err
		}
		n := 0
		err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case p != "." && strings.HasPrefix(d.Name(), "."):
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			case d.IsDir():
				return nil
			}
			st, err := fs.Stat(sub, p)
			switch {
			case err != nil && errors.Is(err, store.ErrPathEscapes):
				return fmt.Errorf("%s resolves outside the plugin (§4.1)", store.Echo(p))
			case errors.Is(err, fs.ErrNotExist), err == nil && !st.Mode().IsRegular():
				return nil // gone, a special file, or a link to a folder (not followed): left out
			case err != nil:
				return fmt.Errorf("%s: %w", store.Echo(p), err)
			}
			if n++; n > maxPluginFiles {
				return fmt.Errorf("the plugin holds over %d files", maxPluginFiles)
			}
			add(path.Join(pl.Dir, p))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", pl.Name, stripHost(err))
		}
	}
	return paths, nil
}

// pluginNames lists plugins' names for a message.
func pluginNames(plugins []store.FoundGroup) string {
	names := make([]string, len(plugins))
	for i, p := range plugins {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// publish is snapshot.Publish in the command's words: --keep is checked
// first, and a bucket that cannot be reached is described without its
// driver's words, which may name hosts.
func publish(ctx context.Context, src fs.FS, skills []snapshot.SkillFiles, b *blobfs.PublishBucket, opts snapshot.PublishOptions) (snapshot.Report, error) {
	if opts.Keep < 1 {
		return snapshot.Report{}, errors.New("--keep must be at least 1: the new snapshot is kept")
	}
	r, err := snapshot.Publish(ctx, src, skills, b, opts)
	if ue := (*snapshot.UnreachableError)(nil); errors.As(err, &ue) {
		err = &snapshot.UnreachableError{Err: errors.New(blobfs.Reason(ue.Err))}
	}
	return r, err
}

// publishable validates the skills in fsys and returns them, with the
// files each holds (hidden files left out). Skills that break the
// specification stop the publish unless force is set.
func publishable(ctx context.Context, fsys fs.FS, force bool, stderr io.Writer) ([]snapshot.SkillFiles, []store.FoundGroup, error) {
	s, c, err := checkedCatalog(ctx, store.Source{Label: "publish", Location: ".", FS: fsys, Grouper: backends.Plugins}, force, stderr)
	if errors.Is(err, errInvalidSkills) {
		return nil, nil, fmt.Errorf("%w or pass --force", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(c.Skills) == 0 && len(c.Groups) == 0 {
		return nil, nil, errors.New("no skills to publish: the folder holds no skill folder with a SKILL.md")
	}
	if len(c.Skills) == 1 && c.Skills[0].Folder() == "." {
		return nil, nil, fmt.Errorf("the folder is one skill's (%s), and a snapshot holds folders of skills: publish the folder that holds it", c.Skills[0].Name)
	}
	files, err := skillFiles(ctx, s, c.Skills)
	return files, c.Groups, err
}

// errInvalidSkills is checkedCatalog's error when a skill breaks the
// specification; what breaks it went to stderr.
var errInvalidSkills = errors.New("some skills break the Agent Skills specification; fix them (see above)")

// checkedCatalog reads the catalog of the one source src and checks it:
// folders without a SKILL.md are skipped with a warning to stderr; any
// other problem, or a skill that breaks the specification, is printed to
// stderr and fails with errInvalidSkills unless force is set. publish,
// bundle and push select and check files through it.
func checkedCatalog(ctx context.Context, src store.Source, force bool, stderr io.Writer) (*store.Store, *store.Catalog, error) {
	s, err := store.New([]store.Source{src}, store.Options{MaxFileSize: 1 << 40, CacheBytes: -1, NoSearch: true, ReportsProblems: true})
	if err != nil {
		return nil, nil, err
	}
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		return nil, nil, err
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
	invalid := len(blocking) > 0
	for _, sk := range c.Skills {
		invalid = invalid || !sk.Valid()
	}
	if invalid && !force {
		// The report is built only to be printed: at 100,000 skills it
		// is 130 MB that a valid catalog need not hold.
		out := catalogJSON(c)
		out.Problems = blocking
		out.Valid = false
		printValidation(stderr, out)
		return nil, nil, errInvalidSkills
	}
	return s, c, nil
}

// publishGC is the garbage collector's GOGC while publishing, unless the
// environment sets one.
const publishGC = 50

// listers is how many skill folders skillFiles lists at once, and
// maxShared how many distinct paths each shares.
const (
	listers   = 8
	maxShared = 10_000
)

// skillFiles lists the files of skills, listers folders at once, and
// returns them in the same order; it stops at the first failure. Paths
// that recur (SKILL.md, scripts/run.sh…) share one string per lister.
func skillFiles(ctx context.Context, s *store.Store, skills []*store.Skill) ([]snapshot.SkillFiles, error) {
	out := make([]snapshot.SkillFiles, len(skills))
	errs := make([]error, len(skills))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(listers, len(skills)) {
		wg.Go(func() {
			seen := map[string]string{}
			for i := int(next.Add(1) - 1); i < len(skills); i = int(next.Add(1) - 1) {
				fis, err := s.View(nil).Files(ctx, skills[i].Name, &store.ReadOptions{Skill: skills[i]})
				if err != nil {
					errs[i] = err
					next.Store(int64(len(skills))) // no more
					return
				}
				ps := snapshot.SkillFiles{Dir: skills[i].Folder(), DocPath: skills[i].DocPath, Files: make([]string, len(fis))}
				for j, fi := range fis {
					p, ok := seen[fi.Path]
					if !ok {
						p = fi.Path
						if len(seen) < maxShared {
							seen[p] = p
						}
					}
					ps.Files[j] = p
				}
				out[i] = ps
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// progress shows a publish (a snapshot.Observer): on a terminal, one
// line redrawn in place (files and bytes done of the total, reused files
// counted as done; the rate of those read; an estimate of the time
// left), then the totals with the time taken; otherwise a line per
// uploaded file; nothing when quiet. Warnings always go out.
type progress struct {
	w, errw    io.Writer
	bar, quiet bool
	limit      int64            // --max-file-size, for the warning of a file over it
	now        func() time.Time // time.Now, but in tests
	totals     snapshot.Totals
	start      time.Time // when Start was called
	drawn      time.Time // when the bar was last drawn
	files      int       // done, reused included
	bytes      int64
	read       int // done and read: what the rate is of
	readBytes  int64
	shown      bool // a status line is shown (status)
}

var (
	_ snapshot.Observer       = (*progress)(nil)
	_ snapshot.LockObserver   = (*progress)(nil)
	_ snapshot.SurveyObserver = (*progress)(nil)
)

// redraw is how often at most the bar is drawn.
const redraw = 100 * time.Millisecond

func newProgress(w, errw io.Writer, quiet bool, limit int64, now func() time.Time) *progress {
	p := &progress{w: w, errw: errw, quiet: quiet, limit: limit, now: now}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.bar = true
		}
	}
	return p
}

// status shows what is under way before the first file, in place of the
// bar (on a terminal only; "" clears what it showed).
func (p *progress) status(s string) {
	if !p.bar || p.quiet || s == "" && !p.shown {
		return
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", s)
	p.shown = s != ""
}

// clearing writes to the progress's error stream once its status line is
// cleared, so that a warning does not run on from it.
type clearing struct{ p *progress }

func (c clearing) Write(b []byte) (int, error) {
	c.p.status("")
	return c.p.errw.Write(b)
}

// Surveying says that the files are being looked at
// (snapshot.SurveyObserver).
func (p *progress) Surveying(skills, files int) {
	p.status(fmt.Sprintf("looking at %d files of %d skills: sizes and times, the published snapshot, the content already stored…", files, skills))
}

func (p *progress) Start(t snapshot.Totals) {
	p.totals, p.start = t, p.now()
	p.shown = false // the bar replaces the status line
}

// File counts one file done, and shows it.
func (p *progress) File(name string, size int64, how snapshot.FileOutcome) {
	p.files++
	p.bytes += size
	if how != snapshot.FileReused {
		p.read++
		p.readBytes += size
	}
	switch {
	case p.quiet:
	case p.bar:
		if now := p.now(); now.Sub(p.drawn) >= redraw || p.files == p.totals.Files {
			p.drawn = now
			p.draw(now)
		}
	case how == snapshot.FileUploaded:
		fmt.Fprintf(p.w, "upload  %s (%d bytes)\n", name, size)
	}
}

// draw draws the bar: what is done of the total, the rate, the time left.
func (p *progress) draw(now time.Time) {
	const width = 20
	done := width * p.files / max(p.totals.Files, 1)
	elapsed := now.Sub(p.start).Seconds()
	rate := "—"
	if elapsed > 0 && p.read > 0 {
		rate = fmt.Sprintf("%.0f files/s, %s/s", float64(p.read)/elapsed, humanSize(int64(float64(p.readBytes)/elapsed)))
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d files, %s/%s, %s, %s\x1b[K", strings.Repeat("#", done), strings.Repeat(".", width-done),
		p.files, p.totals.Files, humanSize(p.bytes), humanSize(p.totals.Bytes), rate, p.left(elapsed))
}

// left estimates the time left from the rate so far of the files read,
// by their number and by their size, taking the longer: reused files
// take no time. It makes none in the first second, whose rate says
// little.
func (p *progress) left(elapsed float64) string {
	files := p.totals.Files - p.totals.Reused - p.read
	bytes := p.totals.Bytes - p.totals.ReusedBytes - p.readBytes
	if files <= 0 {
		return "0s left"
	}
	if p.read == 0 || elapsed < 1 {
		return "time left unknown"
	}
	secs := float64(files) * elapsed / float64(p.read)
	if p.readBytes > 0 {
		secs = max(secs, float64(bytes)*elapsed/float64(p.readBytes))
	}
	return (time.Duration(secs * float64(time.Second))).Round(time.Second).String() + " left"
}

func (p *progress) OverLimit(name string, size int64) {
	p.warn(fmt.Sprintf("%s is %s, over the serving limit of %s (--max-file-size): servers will refuse to read it",
		name, store.FormatSize(size), store.FormatSize(p.limit)))
}

// FilesDone replaces the bar with the totals and the time they took.
func (p *progress) FilesDone() {
	if !p.bar || p.quiet || p.files == 0 {
		return
	}
	took := p.now().Sub(p.start)
	fmt.Fprintf(p.w, "\r%d files, %s, in %s", p.files, humanSize(p.bytes), took.Round(time.Millisecond))
	if secs := took.Seconds(); secs > 0 && p.read > 0 {
		fmt.Fprintf(p.w, " (%d read: %.0f files/s, %s/s)", p.read, float64(p.read)/secs, humanSize(int64(float64(p.readBytes)/secs)))
	}
	if p.totals.Reused > 0 {
		fmt.Fprintf(p.w, "; %d unchanged and not read", p.totals.Reused)
	}
	fmt.Fprint(p.w, "\x1b[K\n")
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
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintln(p.errw, "skillstore: warning:", s)
}

// humanSize is n bytes to three figures or so: 512B, 4.0KB, 12.3MB,
// 150MB (units of 1,024, as store.FormatSize's).
func humanSize(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	v, suffix := float64(n)/unit, "KB"
	for _, s := range []string{"MB", "GB", "TB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	if v < 100 {
		return fmt.Sprintf("%.1f%s", v, suffix)
	}
	return fmt.Sprintf("%.0f%s", v, suffix)
}
