package store

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"time"
)

// ZipOptions tune WriteZip.
type ZipOptions struct {
	// Prefix is the folder every entry is put in ("name/"); empty puts
	// the files at the archive's root.
	Prefix string
	// MaxBytes bounds the content written; past it WriteZip fails with
	// ErrZipTooLarge. Zero means no bound.
	MaxBytes int64
	// Skipped, if set, is told of each file left out for being over
	// Options.MaxFileSize (the store serves none of it; it is left out
	// whether or not Skipped is set).
	Skipped func(path string)
}

// ErrZipTooLarge is WriteZip's error for files that add up to more than
// ZipOptions.MaxBytes.
var ErrZipTooLarge = errors.New("its files add up to more than one archive may hold")

// zipTime is every entry's modification time: a fixed one, so an
// archive's bytes depend on its content alone (replicas make the same).
var zipTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// writeZip is View.WriteZip.
func (s *Store) writeZip(ctx context.Context, w io.Writer, sk *Skill, files []FileInfo, opts ZipOptions) error {
	zw := zip.NewWriter(w)
	var total int64
	for _, f := range files {
		file, err := s.readFileOf(ctx, sk, f.Path, false)
		if errors.Is(err, ErrTooLarge) {
			if opts.Skipped != nil {
				opts.Skipped(f.Path)
			}
			continue
		}
		if err != nil {
			return err
		}
		content := file.Raw
		if total += int64(len(content)); opts.MaxBytes > 0 && total > opts.MaxBytes {
			return ErrZipTooLarge
		}
		name := f.Path
		if name == sk.DocPath {
			name = DocName
		}
		method := zip.Deflate
		if Compressed(name) {
			method = zip.Store
		}
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: opts.Prefix + name, Method: method, Modified: zipTime})
		if err != nil {
			return err
		}
		if _, err := io.WriteString(fw, content); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Compressed reports whether a file's name says its format is compressed
// already (images, archives, audio and video, fonts, Office documents),
// so deflating it again costs CPU and saves next to nothing: WriteZip
// stores such files as they are.
func Compressed(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".heic",
		".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar", ".skill",
		".mp3", ".mp4", ".m4a", ".ogg", ".webm", ".mov",
		".woff", ".woff2", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".epub":
		return true
	}
	return false
}
