package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/store"
)

func publishCmd(g *globals) *cobra.Command {
	var opts publishOptions
	cmd := &cobra.Command{
		Use:   "publish DIR URL",
		Short: "Validate the skills in DIR and upload them to object storage, skipping unchanged files",
		Long: `publish checks every skill in DIR against the Agent Skills specification, then
uploads the skills' files to the bucket URL (s3://, gs:// or azblob://, with ?prefix=…),
one object per file at SKILL-NAME/PATH. A file whose size and MD5 match the object already
there is skipped. With --delete, objects under the prefix that DIR no longer has are removed.
Hidden files and folders (names starting with ".") are not published.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			local, err := backends.Local(backends.ExpandHome(args[0]))
			if err != nil {
				return fmt.Errorf("skills folder %s: %w", args[0], stripHost(err))
			}
			defer local.Close()
			files, idx, err := publishable(ctx, local, opts.force, g.stderr)
			if err != nil {
				return err
			}
			b, shown, err := blobfs.OpenBucket(ctx, args[1])
			if err != nil {
				return err
			}
			defer b.Close()
			r, err := publish(ctx, local, files, idx, b, opts, g.stdout)
			if err != nil {
				return fmt.Errorf("publishing to %s: %w", shown, err)
			}
			verb := ""
			if opts.dryRun {
				verb = " (dry run: nothing was changed)"
			}
			fmt.Fprintf(g.stdout, "%s: %d uploaded, %d unchanged, %d deleted%s\n", shown, r.uploaded, r.unchanged, r.deleted, verb)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.delete, "delete", false, "remove objects under the prefix that DIR no longer has")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would change and change nothing")
	f.BoolVar(&opts.force, "force", false, "publish even if some skills break the specification")
	return cmd
}

type publishOptions struct {
	delete, dryRun, force bool
}

type publishReport struct {
	uploaded, unchanged, deleted int
}

// publishable validates the skills in fsys and returns the paths of their
// files, sorted, and the catalog index to publish with them. Skills that
// break the specification stop the publish unless force is set.
func publishable(ctx context.Context, fsys fs.FS, force bool, stderr io.Writer) ([]string, store.Index, error) {
	idx := store.Index{Version: store.IndexVersion}
	s, err := store.New([]store.Source{{Label: "publish", Location: ".", FS: fsys}}, store.Options{MaxFileSize: 1 << 40, CacheBytes: -1})
	if err != nil {
		return nil, idx, err
	}
	c, err := s.Catalog(ctx)
	if err != nil {
		return nil, idx, err
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
		return nil, idx, errors.New("some skills break the Agent Skills specification; fix them (see above) or pass --force")
	}
	var files []string
	for _, sk := range c.Skills {
		fis, err := s.Files(ctx, sk.Name)
		if err != nil {
			return nil, idx, err
		}
		doc, err := fs.ReadFile(fsys, sk.Name+"/"+sk.DocPath)
		if err != nil {
			return nil, idx, err
		}
		sum := md5.Sum(doc)
		idx.Skills = append(idx.Skills, store.IndexEntry{Dir: sk.Name, DocPath: sk.DocPath, Size: int64(len(doc)), MD5: hex.EncodeToString(sum[:]), Frontmatter: sk.Raw})
		for _, fi := range fis { // Files leaves hidden paths out
			files = append(files, sk.Name+"/"+fi.Path)
		}
	}
	if len(files) == 0 {
		return nil, idx, errors.New("no skills to publish: the folder holds no skill folder with a SKILL.md")
	}
	sort.Strings(files)
	return files, idx, nil
}

// publish uploads files (paths in fsys) to b under the same keys, skipping
// those whose object has the same size and MD5, then the catalog index
// (store.IndexPath), and with opts.delete removes the other objects. Each
// change is printed to out.
func publish(ctx context.Context, fsys fs.FS, files []string, idx store.Index, b *blob.Bucket, opts publishOptions, out io.Writer) (publishReport, error) {
	var r publishReport
	if ok, err := b.IsAccessible(ctx); err != nil || !ok {
		// gocloud's Azure writer panics on a missing container: check first.
		return r, errors.New("the bucket or container does not exist or cannot be reached; create it first and check the credentials")
	}
	type object struct {
		size int64
		md5  []byte
	}
	existing := map[string]object{}
	iter := b.List(nil)
	for {
		o, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r, fmt.Errorf("listing the bucket: %w", err)
		}
		if !o.IsDir {
			existing[o.Key] = object{o.Size, o.MD5}
		}
	}
	indexJSON, err := json.MarshalIndent(idx, "", " ")
	if err != nil {
		return r, err
	}
	local := make(map[string]bool, len(files)+1)
	for _, key := range append(files, store.IndexPath) {
		local[key] = true
		var data []byte
		if key == store.IndexPath {
			data = indexJSON
		} else if data, err = fs.ReadFile(fsys, key); err != nil {
			return r, fmt.Errorf("reading %s: %w", key, stripHost(err))
		}
		sum := md5.Sum(data)
		if o, ok := existing[key]; ok && o.size == int64(len(data)) && bytes.Equal(o.md5, sum[:]) {
			r.unchanged++
			continue
		}
		fmt.Fprintf(out, "upload  %s (%d bytes)\n", key, len(data))
		r.uploaded++
		if opts.dryRun {
			continue
		}
		ct := mime.TypeByExtension(path.Ext(key))
		if key == store.IndexPath {
			ct = "application/json"
		}
		if strings.HasSuffix(key, ".md") {
			ct = "text/markdown; charset=utf-8"
		}
		if err := b.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: ct, ContentMD5: sum[:]}); err != nil {
			return r, fmt.Errorf("uploading %s: %w", key, err)
		}
	}
	if opts.delete {
		var gone []string
		for key := range existing {
			if !local[key] {
				gone = append(gone, key)
			}
		}
		sort.Strings(gone)
		for _, key := range gone {
			fmt.Fprintf(out, "delete  %s\n", key)
			r.deleted++
			if opts.dryRun {
				continue
			}
			if err := b.Delete(ctx, key); err != nil {
				return r, fmt.Errorf("deleting %s: %w", key, err)
			}
		}
	}
	return r, nil
}
