package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/store"
)

func updateCmd(g *globals) *cobra.Command {
	var (
		to    target
		force bool
	)
	cmd := &cobra.Command{
		Use:   "update [SKILL]...",
		Short: "Reinstall the lock's skills from their recorded sources and move their pins",
		Long: `update reinstalls the named skills (every skill in skills-lock.json when none is
named), each from the source its lock entry records, into the skill folder of each
--agent, and rewrites their entries: computedHash and skillstore's pin (digest,
revision, version, signer) now name the copy the source serves. It writes as install
does: each skill beside its target, renamed into place; a folder changed since it was
installed, or one skillstore did not install, is left alone unless --force.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(g.sources) > 0 {
				return errors.New("update reads the sources skills-lock.json records; leave out --source")
			}
			in, err := to.installer()
			if err != nil {
				return err
			}
			in.force, in.out, in.errOut = force, g.stdout, g.stderr
			return in.runLocked(cmd.Context(), g.opener(cmd), args)
		},
	}
	f := cmd.Flags()
	to.add(f, "update")
	f.BoolVar(&force, "force", false, "replace skill folders skillstore did not write, or that changed since")
	return cmd
}

func lockCmd(g *globals) *cobra.Command {
	var (
		to    target
		check bool
	)
	cmd := &cobra.Command{
		Use:   "lock --check",
		Short: "Check installed skills against skills-lock.json (exit 1 on drift, for CI)",
		Long: `lock --check recomputes the computedHash of each skill folder skills-lock.json names,
in the folder of each --agent (default universal: .agents/skills), and compares it with
the lock. It accepts a lock the vercel skills CLI wrote (entries with no skillstore pin
are checked by computedHash alone). With --source, it also reads each skill's copy
there and compares it with the pin (its digest, else computedHash), and names the files
an installed folder adds, lacks or changes against that copy.

It prints one line per drift, "drift: SKILL: WHERE: WHAT" (removed: the lock names a
skill the folder lacks; added: a skill folder, or a file, the lock does not name;
changed), then a summary, and exits 1 on any drift. The lock only holds a hash of each
folder, so without --source a changed folder is reported as changed, its files unnamed.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !check {
				return errors.New("lock checks only, for now: pass --check")
			}
			in, err := to.installer()
			if err != nil {
				return err
			}
			if len(g.sources) == 0 {
				return in.check(cmd.Context(), nil, g.stdout)
			}
			return g.withStore(cmd, func(s *store.Store) error { return in.check(cmd.Context(), s.View(nil), g.stdout) })
		},
	}
	f := cmd.Flags()
	f.BoolVar(&check, "check", false, "compare the installed skills (and, with --source, the sources' copies) with the lock")
	to.add(f, "check")
	return cmd
}

// check compares the folders of in.dirs, and the copies in v when v is
// not nil, with the lock, writing a line per drift to out; it returns
// exitCode(exitFail) on drift.
func (in *installer) check(ctx context.Context, v *store.View, out io.Writer) error {
	lock, err := in.readLock()
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(in.root)
	if err != nil {
		return err
	}
	defer root.Close()
	drifted := map[string]bool{}
	say := func(skill, where, what string) {
		drifted[skill] = true
		fmt.Fprintf(out, "drift: %s: %s: %s\n", skill, where, what)
	}
	folders := map[string]bool{}
	for _, name := range lock.Names() {
		e := lock.Skills[name]
		folders[installFolderName(name)] = true
		var src []lockfile.FileDigest // the source's copy, when read
		if v != nil {
			files, digest, hash, err := sourceCopy(ctx, v, name)
			switch {
			case err != nil:
				say(name, "source", err.Error())
			case e.Skillstore != nil && e.Skillstore.Digest != "" && digest != e.Skillstore.Digest:
				say(name, "source", fmt.Sprintf("changed: its copy has digest %s; the lock pins %s", digest, e.Skillstore.Digest))
			case (e.Skillstore == nil || e.Skillstore.Digest == "") && hash != e.ComputedHash:
				say(name, "source", fmt.Sprintf("changed: its copy has computedHash %s; the lock has %s", hash, e.ComputedHash))
			}
			src = files
		}
		for _, d := range in.dirs {
			target := path.Join(d, installFolderName(name))
			if err := checkDir(root, d, in.root); err != nil {
				say(name, target, err.Error())
				continue
			}
			fi, err := root.Lstat(target)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				say(name, target, "removed: the lock names it, the folder is gone")
				continue
			case err != nil:
				say(name, target, err.Error())
				continue
			case !fi.IsDir():
				say(name, target, "changed: not a folder")
				continue
			}
			hash, err := lockfile.ComputedHash(subFS(root, target))
			if err != nil {
				say(name, target, "cannot be read: "+err.Error())
				continue
			}
			if hash == e.ComputedHash {
				continue
			}
			say(name, target, fmt.Sprintf("changed: its computedHash is %s; the lock has %s", hash, e.ComputedHash))
			if src == nil {
				continue
			}
			have, err := lockfile.Files(subFS(root, target))
			if err != nil {
				say(name, target, "cannot be read: "+err.Error())
				continue
			}
			for _, line := range fileDrift(have, src) {
				say(name, target, line)
			}
		}
	}
	for _, d := range in.dirs {
		ents, err := fs.ReadDir(root.FS(), d)
		if err != nil {
			continue // missing: each skill said so
		}
		for _, de := range ents {
			if de.IsDir() && !strings.HasPrefix(de.Name(), ".") && !folders[de.Name()] {
				say(de.Name(), path.Join(d, de.Name()), "added: a skill folder "+lockfile.FileName+" does not name")
			}
		}
	}
	if len(drifted) > 0 {
		fmt.Fprintf(out, "%s: %d skills drifted: %s\n", in.lockPath, len(drifted), strings.Join(sortedKeys(drifted), ", "))
		return exitCode(exitFail)
	}
	fmt.Fprintf(out, "%s: all %d skills match (%s)\n", in.lockPath, len(lock.Skills), strings.Join(in.dirs, ", "))
	return nil
}

// sourceCopy reads skill name's files from v and returns their digests,
// the pin digest and the computedHash of a folder holding them.
func sourceCopy(ctx context.Context, v *store.View, name string) ([]lockfile.FileDigest, string, string, error) {
	sk, err := v.Skill(ctx, name)
	if err != nil {
		return nil, "", "", fmt.Errorf("removed: the lock names it, the source does not have it (%s)", errorText(err))
	}
	infos, err := v.Files(ctx, name, &store.ReadOptions{Skill: sk})
	if err != nil {
		return nil, "", "", errors.New(errorText(err))
	}
	files := make([]lockfile.FileDigest, 0, len(infos))
	folder := fstest.MapFS{}
	for _, fi := range infos {
		p, raw, sum, err := readSkillFile(ctx, v, sk, fi)
		if err != nil {
			return nil, "", "", err
		}
		files = append(files, lockfile.FileDigest{Path: p, SHA256: sum})
		folder[p] = &fstest.MapFile{Data: []byte(raw)}
	}
	hash, err := lockfile.ComputedHash(folder)
	if err != nil {
		return nil, "", "", err
	}
	return files, lockfile.FilesDigest(files), hash, nil
}

// fileDrift lists how the files have differ from want: "added file P"
// (in have only), "removed file P" (in want only), "changed file P", in
// byte order of path.
func fileDrift(have, want []lockfile.FileDigest) []string {
	h := map[string]string{}
	for _, f := range have {
		h[f.Path] = f.SHA256
	}
	w := map[string]string{}
	for _, f := range want {
		w[f.Path] = f.SHA256
	}
	var lines []string
	for _, p := range sortedKeys(h) {
		switch ws, ok := w[p]; {
		case !ok:
			lines = append(lines, "added file "+p)
		case ws != h[p]:
			lines = append(lines, "changed file "+p)
		}
	}
	for _, p := range sortedKeys(w) {
		if _, ok := h[p]; !ok {
			lines = append(lines, "removed file "+p)
		}
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		return strings.Compare(a[strings.Index(a, " file ")+6:], b[strings.Index(b, " file ")+6:])
	})
	return lines
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
