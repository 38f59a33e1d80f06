package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/store"
)

// agentDir is where one agent reads skills: in a project (relative to its
// root) and for the user (from the home folder, or an environment
// variable's folder).
type agentDir struct {
	project string
	global  func() (string, error)
}

// agentDirs are the agents install writes for, with the folders the
// vercel skills CLI (1.7.4) uses for them; "universal" is the
// cross-client .agents/skills that many agents read.
var agentDirs = map[string]agentDir{
	"claude-code": {".claude/skills", func() (string, error) {
		if d := strings.TrimSpace(os.Getenv("CLAUDE_CONFIG_DIR")); d != "" {
			return filepath.Join(d, "skills"), nil
		}
		return fromHome(".claude/skills")
	}},
	"codex":  {".agents/skills", func() (string, error) { return fromHome(".agents/skills") }},
	"cursor": {".agents/skills", func() (string, error) { return fromHome(".cursor/skills") }},
	"universal": {".agents/skills", func() (string, error) {
		if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
			return filepath.Join(d, "agents/skills"), nil
		}
		return fromHome(".config/agents/skills")
	}},
}

func fromHome(rel string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, rel), nil
}

// target is where skills are installed, as the flags --agent, --global
// and --project name it: install, update and lock share them.
type target struct {
	agents  []string
	global  bool
	project string
}

// add adds the flags; verb says what the command does there.
func (t *target) add(f *pflag.FlagSet, verb string) {
	f.StringArrayVarP(&t.agents, "agent", "a", nil, verb+" agent `A`'s folder (repeatable): "+strings.Join(agentNames(), ", "))
	f.BoolVarP(&t.global, "global", "g", false, verb+" the user's folders and lock instead of the project's")
	f.StringVar(&t.project, "project", ".", "the project's root `DIR`, where the agents' folders and skills-lock.json are")
}

// installer is newInstallerFor the target.
func (t *target) installer() (*installer, error) {
	return newInstallerFor(t.project, t.global, t.agents)
}

// agentNames lists agentDirs' names, sorted.
func agentNames() []string {
	var names []string
	for n := range agentDirs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func installCmd(g *globals) *cobra.Command {
	var (
		to     target
		force  bool
		frozen bool
	)
	cmd := &cobra.Command{
		Use:   "install SOURCE [SKILL]... | --frozen [SKILL]...",
		Short: "Copy skills from a source into agents' skill folders and pin them in skills-lock.json",
		Long: `install copies the named skills (every skill when none is named) from SOURCE, any
source --source takes (a folder, a bucket, git, a .well-known URL, OCI, a skillstore
server's .well-known URL), into the skill folder of each --agent, and records each in
skills-lock.json, the lock file of the vercel skills CLI: its computedHash, computed as
that CLI computes it, and skillstore's pin (the files' digest, the source's revision,
the version and the signer when known) in the entry's "skillstore" field.

Every file is checked against the digest its source gives, when it gives one. Each
skill is written to a temporary folder beside its target and renamed into place, so
an interrupted install leaves the previous copy whole. Links are never followed out
of the project (or home) folder. A skill folder install did not write (no pin for it
in the lock), or one changed since, is left alone unless --force is given.

Agents: ` + strings.Join(agentNames(), ", ") + ` (default universal: .agents/skills).
The project lock is PROJECT/skills-lock.json; with --global the folders are the
user's and the lock is skills-lock.json in skillstore's user configuration folder
(the vercel CLI keeps its global lock, of another format, elsewhere).

With --frozen, install takes no SOURCE: it installs the lock's skills (those named, or
all) exactly as pinned, each from the source its entry records. A skill whose source
no longer has it, or whose copy there differs from the pin (its digest, else its
computedHash: a moved tag or a new latest version), is refused and nothing of it is
written; the lock is not rewritten. Skillstore reads a source's current copy of a
skill only, so a registry's older pinned version cannot be fetched: the refusal says
so. Use update to move pins.`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if frozen {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(g.sources) > 0 {
				return errors.New("install reads the SOURCE it is given (with --frozen, the lock's); leave out --source")
			}
			in, err := to.installer()
			if err != nil {
				return err
			}
			in.force, in.out, in.errOut = force, g.stdout, g.stderr
			if frozen {
				in.frozen = true
				return in.runLocked(cmd.Context(), g.opener(cmd), args)
			}
			in.source = args[0]
			g.sources = []string{args[0]}
			return g.withStore(cmd, func(s *store.Store) error { return in.run(cmd.Context(), s, args[1:]) })
		},
	}
	f := cmd.Flags()
	to.add(f, "install into")
	f.BoolVar(&force, "force", false, "replace skill folders install did not write, or that changed since")
	f.BoolVar(&frozen, "frozen", false, "install the lock's skills exactly as pinned, from the sources it records; refuse any that differ")
	return cmd
}

// newInstallerFor is newInstaller after checking the --agent names
// (universal when none is given).
func newInstallerFor(project string, global bool, agents []string) (*installer, error) {
	if len(agents) == 0 {
		agents = []string{"universal"}
	}
	for _, a := range agents {
		if _, ok := agentDirs[a]; !ok {
			return nil, fmt.Errorf("unknown --agent %q: use one of %s", a, strings.Join(agentNames(), ", "))
		}
	}
	return newInstaller(project, global, agents)
}

// opener opens a store over one source, for commands that read the
// sources a lock records, one after the other.
func (g *globals) opener(cmd *cobra.Command) func(source string, f func(*store.Store) error) error {
	return func(source string, f func(*store.Store) error) error {
		g.sources = []string{source}
		return g.withStore(cmd, f)
	}
}

// installer copies skills into a root folder's agent skill folders.
type installer struct {
	root     string   // the project's root, or the home folder for --global
	dirs     []string // the skill folders, relative to root, "/"-separated, each once
	lockPath string
	lockDir  string // the folder local sources are recorded relative to; "" records them absolute
	source   string // SOURCE as given
	force    bool
	frozen   bool      // install only what the lock pins, and leave the lock as it is
	out      io.Writer // what was installed
	errOut   io.Writer // what was not, and why
	// writer, when set, wraps each file's writer: tests inject a full
	// disk with it.
	writer func(io.Writer) io.Writer
}

func newInstaller(project string, global bool, agents []string) (*installer, error) {
	in := &installer{}
	if !global {
		abs, err := filepath.Abs(project)
		if err != nil {
			return nil, err
		}
		in.root, in.lockDir = abs, abs
		in.lockPath = filepath.Join(abs, lockfile.FileName)
		for _, a := range agents {
			if d := agentDirs[a].project; !slices.Contains(in.dirs, d) {
				in.dirs = append(in.dirs, d)
			}
		}
		return in, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	in.root = home
	for _, a := range agents {
		d, err := agentDirs[a].global()
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(home, d)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("--global: %s's folder %s is outside the home folder %s", a, d, home)
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(in.dirs, rel) {
			in.dirs = append(in.dirs, rel)
		}
	}
	conf, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(conf, "skillstore"), 0o755); err != nil {
		return nil, err
	}
	in.lockPath = filepath.Join(conf, "skillstore", lockfile.FileName)
	return in, nil
}

// run installs the named skills (all when none is named) from s.
func (in *installer) run(ctx context.Context, s *store.Store, names []string) error {
	v := s.View(nil)
	if len(names) == 0 {
		list, err := v.List(ctx)
		if err != nil {
			return err
		}
		for _, sk := range list {
			names = append(names, sk.Name)
		}
		if len(names) == 0 {
			return errors.New("the source holds no skills")
		}
	}
	lock, err := lockfile.Read(in.lockPath)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(in.root)
	if err != nil {
		return err
	}
	defer root.Close()
	failed := in.installAll(ctx, v, root, lock, names)
	return in.finish(lock, names, failed)
}

// installAll installs names from v, updating lock, and returns those
// that failed (each said on errOut).
func (in *installer) installAll(ctx context.Context, v *store.View, root *os.Root, lock *lockfile.Lock, names []string) (failed []string) {
	for _, name := range names {
		entry, changed, err := in.installSkill(ctx, v, root, lock.Skills[name], name)
		if err != nil {
			fmt.Fprintf(in.errOut, "skillstore: %s: not installed: %v\n", name, err)
			failed = append(failed, name)
			continue
		}
		lock.Skills[name] = entry
		if changed {
			fmt.Fprintf(in.out, "%s: installed into %s\n", name, strings.Join(in.dirs, ", "))
		} else {
			fmt.Fprintf(in.out, "%s: up to date\n", name)
		}
	}
	return failed
}

// finish writes lock when it changed (never under --frozen) and says
// which of names failed.
func (in *installer) finish(lock *lockfile.Lock, names, failed []string) error {
	if !in.frozen {
		if old, err := os.ReadFile(in.lockPath); err != nil || !bytes.Equal(old, lock.Marshal()) {
			if err := lock.WriteFile(in.lockPath); err != nil {
				return fmt.Errorf("writing %s: %w", in.lockPath, err)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d skills not installed: %s", len(failed), len(names), strings.Join(failed, ", "))
	}
	return nil
}

// runLocked installs the lock's skills (names, else all), each from the
// source its entry records (opened with open, one source at a time):
// under --frozen exactly as pinned, else their current copies, moving
// the pins (update).
func (in *installer) runLocked(ctx context.Context, open func(string, func(*store.Store) error) error, names []string) error {
	lock, err := in.readLock()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = lock.Names()
	}
	var groups []string // sources, in the order their first skill comes
	bySource := map[string][]string{}
	for _, name := range names {
		e, ok := lock.Skills[name]
		if !ok {
			return fmt.Errorf("%s is not in %s", name, in.lockPath)
		}
		src := in.recordedSource(name, e)
		if _, ok := bySource[src]; !ok {
			groups = append(groups, src)
		}
		bySource[src] = append(bySource[src], name)
	}
	root, err := os.OpenRoot(in.root)
	if err != nil {
		return err
	}
	defer root.Close()
	var failed []string
	for _, src := range groups {
		in.source = src
		err := open(src, func(s *store.Store) error {
			failed = append(failed, in.installAll(ctx, s.View(nil), root, lock, bySource[src])...)
			return nil
		})
		if err != nil {
			for _, name := range bySource[src] {
				fmt.Fprintf(in.errOut, "skillstore: %s: not installed: its source %s cannot be read: %s\n", name, src, errorText(err))
				failed = append(failed, name)
			}
		}
	}
	return in.finish(lock, names, failed)
}

// readLock reads the lock, which must exist and name a skill.
func (in *installer) readLock() (*lockfile.Lock, error) {
	if _, err := os.Stat(in.lockPath); err != nil {
		return nil, fmt.Errorf("no lock to read: %w", err)
	}
	lock, err := lockfile.Read(in.lockPath)
	if err != nil {
		return nil, err
	}
	if len(lock.Skills) == 0 {
		return nil, fmt.Errorf("%s names no skills", in.lockPath)
	}
	return lock, nil
}

// recordedSource is the source entry name records, as --source takes
// it: a local folder (made absolute from the lock's folder), a
// .well-known publication's URL, else the source as recorded. The vercel
// CLI records the folder it was given and finds skills below it, so a
// local folder that lacks the skill is looked in at skills,
// .agents/skills and .claude/skills too, as the CLI's first places.
// (The CLI's search of any deeper folder is not followed.)
func (in *installer) recordedSource(name string, e *lockfile.Entry) string {
	switch {
	case e.SourceType == "local":
		dir := filepath.FromSlash(e.Source)
		if !filepath.IsAbs(dir) && in.lockDir != "" {
			dir = filepath.Join(in.lockDir, dir)
		}
		for _, sub := range []string{".", "skills", ".agents/skills", ".claude/skills"} {
			d := filepath.Join(dir, sub)
			for _, f := range []string{name, installFolderName(name)} {
				if _, err := os.Stat(filepath.Join(d, f, "SKILL.md")); err == nil {
					return d
				}
			}
		}
		return dir
	case e.SourceURL != "":
		return e.SourceURL
	}
	return e.Source
}

// installSkill copies skill name into every folder of in.dirs and returns
// its lock entry (old's, updated), and whether any folder changed.
func (in *installer) installSkill(ctx context.Context, v *store.View, root *os.Root, old *lockfile.Entry, name string) (*lockfile.Entry, bool, error) {
	sk, err := v.Skill(ctx, name)
	if err != nil {
		return nil, false, errors.New(errorText(err))
	}
	files, err := v.Files(ctx, name, &store.ReadOptions{Skill: sk})
	if err != nil {
		return nil, false, errors.New(errorText(err))
	}
	if in.frozen {
		if err := pinnedEarly(old, sk, files); err != nil {
			return nil, false, err
		}
	}
	folder := installFolderName(name)
	// Refuse before writing anything: a folder this did not install, or
	// one changed since.
	for _, d := range in.dirs {
		if err := checkDir(root, d, in.root); err != nil {
			return nil, false, err
		}
		if err := in.checkTarget(root, old, path.Join(d, folder)); err != nil {
			return nil, false, err
		}
	}
	var digests []lockfile.FileDigest
	var hash string
	changed := false
	for _, d := range in.dirs {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return nil, false, explain(d, fmt.Errorf("making %s: %w", d, err))
		}
		tmp := path.Join(d, "."+folder+".skillstore-"+randomSuffix())
		ds, h, err := in.writeSkill(ctx, v, root, sk, files, tmp)
		if err == nil && in.frozen {
			err = pinned(old, sk, ds, h)
		}
		if err != nil {
			root.RemoveAll(tmp)
			return nil, false, explain(d, err)
		}
		digests, hash = ds, h
		target := path.Join(d, folder)
		if cur, err := lockfile.ComputedHash(subFS(root, target)); err == nil && cur == h && sameModes(root, tmp, target, files) {
			root.RemoveAll(tmp) // already installed, byte for byte
			continue
		}
		if err := swap(root, tmp, target); err != nil {
			root.RemoveAll(tmp)
			return nil, false, explain(d, err)
		}
		changed = true
	}
	if in.frozen {
		return old, changed, nil // the lock stays as it is
	}
	e := old
	if e == nil {
		e = &lockfile.Entry{}
	}
	e.Source, e.SourceURL, e.SourceType = in.lockSource(sk)
	e.Ref, e.SkillPath = "", ""
	e.ComputedHash = hash
	e.Skillstore = pinOf(sk, digests)
	return e, changed, nil
}

// checkTarget fails when target holds something install may not replace:
// a skill folder with no skillstore pin in the lock, or one whose files
// changed since (its computedHash differs), unless --force.
func (in *installer) checkTarget(root *os.Root, old *lockfile.Entry, target string) error {
	fi, err := root.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	if in.force {
		return nil
	}
	if old == nil || old.Skillstore == nil {
		if in.frozen && old != nil && fi.IsDir() {
			// --frozen keeps a folder the lock's computedHash names,
			// whoever wrote it (the vercel CLI, say).
			if cur, err := lockfile.ComputedHash(subFS(root, target)); err == nil && cur == old.ComputedHash {
				return nil
			}
		}
		return fmt.Errorf("%s exists and skillstore did not install it (no pin in %s); pass --force to replace it", target, lockfile.FileName)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder skillstore installed; pass --force to replace it", target)
	}
	if cur, err := lockfile.ComputedHash(subFS(root, target)); err != nil || cur != old.ComputedHash {
		return fmt.Errorf("%s changed since skillstore installed it (its files no longer match computedHash in %s); pass --force to replace it", target, lockfile.FileName)
	}
	return nil
}

// writeSkill writes sk's files into the new folder tmp, checking each
// against the digest its source gives, and returns the files' digests
// and the folder's computedHash.
func (in *installer) writeSkill(ctx context.Context, v *store.View, root *os.Root, sk *store.Skill, files []store.FileInfo, tmp string) ([]lockfile.FileDigest, string, error) {
	if err := root.Mkdir(tmp, 0o755); err != nil {
		return nil, "", err
	}
	digests := make([]lockfile.FileDigest, 0, len(files))
	for _, fi := range files {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		p, raw, got, err := readSkillFile(ctx, v, sk, fi)
		if err != nil {
			return nil, "", err
		}
		dst := path.Join(tmp, p)
		if dir := path.Dir(dst); dir != tmp {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return nil, "", err
			}
		}
		mode := fs.FileMode(0o644)
		if fi.Executable {
			mode = 0o755
		}
		w, err := root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return nil, "", err
		}
		var dw io.Writer = w
		if in.writer != nil {
			dw = in.writer(w)
		}
		_, err = io.WriteString(dw, raw)
		if err == nil {
			err = w.Sync()
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Chmod(dst, mode) // not narrowed by the umask
		}
		if err != nil {
			return nil, "", fmt.Errorf("writing %s: %w", dst, err)
		}
		digests = append(digests, lockfile.FileDigest{Path: p, SHA256: got})
	}
	h, err := lockfile.ComputedHash(subFS(root, tmp))
	return digests, h, err
}

// readSkillFile reads one file of sk, checked against the digest its
// source gives, and returns its path in an installed folder (SKILL.md for
// the skill's document, whatever case the source spells it in), its
// bytes and their hex SHA-256.
func readSkillFile(ctx context.Context, v *store.View, sk *store.Skill, fi store.FileInfo) (p, raw, sum string, err error) {
	f, err := v.ReadFile(ctx, sk.Name, fi.Path, &store.ReadOptions{Skill: sk, Uncached: true})
	if err != nil {
		return "", "", "", errors.New(errorText(err))
	}
	h := sha256.Sum256([]byte(f.Raw))
	sum = hex.EncodeToString(h[:])
	if fi.SHA256 != "" && sum != fi.SHA256 {
		return "", "", "", fmt.Errorf("%s: its bytes do not match the digest its source gives (sha256 %s, want %s)", fi.Path, sum, fi.SHA256)
	}
	p = fi.Path
	if p == sk.DocPath {
		p = "SKILL.md"
	}
	return p, f.Raw, sum, nil
}

// pinnedEarly refuses, before anything is written, a skill whose
// source says its copy is not the pinned one: a registry's version
// digest, or the digests of every file, when the source gives them.
func pinnedEarly(old *lockfile.Entry, sk *store.Skill, files []store.FileInfo) error {
	if old == nil || old.Skillstore == nil || old.Skillstore.Digest == "" {
		return nil
	}
	if pr := sk.Provenance; pr != nil && pr.Version != nil && pr.Version.Digest != "" && pr.Version.Digest != old.Skillstore.Digest {
		return pinError(old, sk, "digest "+pr.Version.Digest)
	}
	digests := make([]lockfile.FileDigest, 0, len(files))
	for _, fi := range files {
		if fi.SHA256 == "" {
			return nil // known once read
		}
		p := fi.Path
		if p == sk.DocPath {
			p = "SKILL.md"
		}
		digests = append(digests, lockfile.FileDigest{Path: p, SHA256: fi.SHA256})
	}
	if d := lockfile.FilesDigest(digests); d != old.Skillstore.Digest {
		return pinError(old, sk, "digest "+d)
	}
	return nil
}

// pinned refuses a copy read from the source (its files' digests and
// computedHash) that is not the one old pins (pinMismatch).
func pinned(old *lockfile.Entry, sk *store.Skill, files []lockfile.FileDigest, hash string) error {
	if got, _ := pinMismatch(old, lockfile.FilesDigest(files), hash); got != "" {
		return pinError(old, sk, got)
	}
	return nil
}

// pinMismatch compares a copy's digest and computedHash ("" for one not
// computed) with what entry e pins: the skillstore pin's digest and the
// computedHash, each when both sides have it. It returns the first that
// differs, as "digest …" or "computedHash …", for the copy (got) and the
// lock (want); "" when none differs. install --frozen and serve --lock
// both check a copy with it.
func pinMismatch(e *lockfile.Entry, digest, hash string) (got, want string) {
	if e.Skillstore != nil && e.Skillstore.Digest != "" && digest != "" && digest != e.Skillstore.Digest {
		return "digest " + digest, "digest " + e.Skillstore.Digest
	}
	if e.ComputedHash != "" && hash != "" && hash != e.ComputedHash {
		return "computedHash " + hash, "computedHash " + e.ComputedHash
	}
	return "", ""
}

// pinError says that the source's copy of sk (got: "digest …" or
// "computedHash …") is not the one old pins.
func pinError(old *lockfile.Entry, sk *store.Skill, got string) error {
	want := "computedHash " + old.ComputedHash
	if old.Skillstore != nil && old.Skillstore.Digest != "" {
		want = "digest " + old.Skillstore.Digest
	}
	msg := fmt.Sprintf("its source's copy is not the one %s pins (the source has %s; the lock pins %s)", lockfile.FileName, got, want)
	if old.Skillstore != nil && old.Skillstore.Version != "" {
		serves := "no version"
		if pr := sk.Provenance; pr != nil && pr.Version != nil {
			serves = "version " + pr.Version.ID
		}
		if !strings.HasSuffix(serves, " "+old.Skillstore.Version) {
			msg += fmt.Sprintf("; the lock pins version %s and the source serves %s, and skillstore reads only the version a source serves now, so it cannot fetch %s", old.Skillstore.Version, serves, old.Skillstore.Version)
		}
	}
	return fmt.Errorf("%s; --frozen installs only what the lock pins, so nothing was written (run `skillstore update %s` to move the pin)", msg, sk.Name)
}

// checkDir refuses a skills folder d (relative to root, at rootPath)
// reached through a link that leads out of root: install never writes
// through one.
func checkDir(root *os.Root, d, rootPath string) error {
	p := ""
	for _, part := range strings.Split(d, "/") {
		p = path.Join(p, part)
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := root.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s is a link that leads out of %s; skillstore never writes through one", p, rootPath)
		}
	}
	return nil
}

// explain words an error writing into the skills folder d for the
// person reading it: a full disk and a folder it may not write are named
// as such. Install removes what it wrote, so what was installed before
// is as it was.
func explain(d string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("the disk is full (%w); what was installed in %s before is unchanged", err, d)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%s is on a read-only file system (%w); nothing there was changed", d, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s is read-only or not writable by this user (%w); nothing there was changed", d, err)
	}
	return err
}

// swap puts the folder tmp in target's place: target, when present, is
// renamed aside, tmp renamed to it, and the old copy removed; if the
// second rename fails the old copy is put back.
func swap(root *os.Root, tmp, target string) error {
	old := ""
	if _, err := root.Lstat(target); err == nil {
		old = path.Join(path.Dir(target), "."+path.Base(target)+".skillstore-old-"+randomSuffix())
		if err := root.Rename(target, old); err != nil {
			return fmt.Errorf("moving %s aside: %w", target, err)
		}
	}
	if err := root.Rename(tmp, target); err != nil {
		if old != "" {
			root.Rename(old, target)
		}
		return fmt.Errorf("renaming into %s: %w", target, err)
	}
	if old != "" {
		root.RemoveAll(old)
	}
	return nil
}

// sameModes reports whether the executable bits of files agree in the
// folders a and b.
func sameModes(root *os.Root, a, b string, files []store.FileInfo) bool {
	for _, fi := range files {
		x, err1 := root.Lstat(path.Join(a, fi.Path))
		y, err2 := root.Lstat(path.Join(b, fi.Path))
		if err1 != nil || err2 != nil || x.Mode() != y.Mode() {
			return false
		}
	}
	return true
}

// subFS is the folder dir of root as a filesystem.
func subFS(root *os.Root, dir string) fs.FS {
	sub, err := fs.Sub(root.FS(), dir)
	if err != nil {
		return root.FS() // not reached: dir is valid
	}
	return sub
}

// lockSource is how the lock records where sk came from: a folder as the
// CLI records one ("local", relative to the lock), a .well-known
// publication as the CLI does ("well-known", the host, the URL), and any
// other source as "skillstore" and its location (which holds no
// credential), which the CLI cannot install from.
func (in *installer) lockSource(sk *store.Skill) (source, sourceURL, sourceType string) {
	kind, loc := "", sk.Source.Location
	if sk.Provenance != nil {
		kind = sk.Provenance.Kind
	}
	switch kind {
	case "local":
		p := in.source
		if _, rest, ok := strings.Cut(p, "="); ok && !strings.ContainsAny(p[:len(p)-len(rest)-1], `/\`) {
			p = rest // LABEL=PATH
		}
		if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
			p = u.Path
		}
		if abs, err := filepath.Abs(p); err == nil {
			if in.lockDir == "" {
				return filepath.ToSlash(abs), "", "local"
			}
			return lockfile.LocalSource(abs, in.lockDir), "", "local"
		}
	case "well-known":
		if u, err := url.Parse(loc); err == nil && u.Host != "" {
			return strings.TrimPrefix(u.Hostname(), "www."), loc, "well-known"
		}
	}
	return loc, "", "skillstore"
}

// pinOf is skillstore's pin of sk installed with files.
func pinOf(sk *store.Skill, files []lockfile.FileDigest) *lockfile.Pin {
	p := &lockfile.Pin{Digest: lockfile.FilesDigest(files)}
	if pr := sk.Provenance; pr != nil {
		p.Revision = pr.Revision
		signer := pr.Signer
		if pr.Version != nil {
			p.Version = pr.Version.ID
			if pr.Version.Signer.Fingerprint != "" {
				signer = pr.Version.Signer
			}
		}
		if signer.Fingerprint != "" {
			p.Signer = &lockfile.Signer{Fingerprint: signer.Fingerprint, Principal: signer.Principal, Kind: signer.Kind}
		}
	}
	return p
}

var unsafeName = regexp.MustCompile(`[^a-z0-9._]+`)

// installFolderName is the folder the vercel CLI installs a skill called
// name into (its sanitizeName): lower case, runs of other characters
// than a-z, 0-9, "." and "_" as "-", leading and trailing "." and "-"
// removed, at most 255 bytes.
func installFolderName(name string) string {
	s := unsafeName.ReplaceAllString(strings.ToLower(name), "-")
	s = strings.TrimLeft(strings.TrimRight(s, ".-"), ".-")
	if len(s) > 255 {
		s = s[:255]
	}
	if s == "" {
		return "unnamed-skill"
	}
	return s
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
