package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends"
)

func bundleCmd(g *globals) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "bundle DIR -o FILE",
		Short: "Write a copy of this program that carries the skills in DIR",
		Long: `bundle checks every skill in DIR against the Agent Skills specification (as publish does),
then writes FILE: a copy of this executable with the skills appended as a zip archive (hidden
files and folders left out). FILE serves them with no flags and no files beside it
("./FILE serve"), on any machine this executable runs on; --source adds sources before them,
whose skills win on a name clash. "unzip -l FILE" lists what it carries.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("give the file to write with -o FILE")
			}
			return runBundle(cmd.Context(), g, args[0], out, force)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the executable to write (`FILE`)")
	cmd.Flags().BoolVar(&force, "force", false, "bundle even if some skills break the specification")
	return cmd
}

// runBundle validates the skills in dir and writes them, after this
// executable, to out: through a temporary file in out's folder, renamed
// over out once complete, so out is never half written.
func runBundle(ctx context.Context, g *globals, dir, out string, force bool) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	local, err := backends.OpenLocal(backends.ExpandHome(dir))
	if err != nil {
		return fmt.Errorf("skills folder %s: %w", dir, stripHost(err))
	}
	defer local.Close()
	skills, plugins, err := publishable(ctx, local, force, g.stderr)
	if err != nil {
		return err
	}
	paths, err := publishPaths(local, skills, plugins)
	if err != nil {
		return err
	}
	var files []backends.BundleFile
	for _, name := range paths {
		files = append(files, backends.BundleFile{Path: name, Open: func() (io.ReadCloser, error) { return local.Open(name) }})
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, stripHost(err))
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing
	n, err := backends.WriteBundle(tmp, exe, files)
	if err == nil {
		err = tmp.Chmod(0o755)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, stripHost(err))
	}
	// What the bundle will do at each start, once now: a bundle over the
	// archive rules' bounds would never start.
	src, _, err := backends.OpenBundle(tmp.Name(), backends.ArchiveOptions{})
	if err != nil {
		if errors.Is(err, backends.ErrUnsafeArchive) {
			return fmt.Errorf("the skills in %s cannot be bundled: %w", dir, errors.Unwrap(err))
		}
		return fmt.Errorf("checking %s: %w", out, stripHost(err))
	}
	src.Close()
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("writing %s: %w", out, stripHost(err))
	}
	fmt.Fprintf(g.stdout, "%s: %d skills, %d files, %s in all; run it: %s serve\n", out, len(skills), len(files), humanSize(n), out)
	return nil
}
