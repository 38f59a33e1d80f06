package skillcheck

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillstore/skillstore/internal/unpack"
)

// Zip checks an upload given as one zip archive of size bytes (its
// entries' paths relative to the upload's root, as Files takes them) and
// returns the skill. The archive is refused whole before a file is read
// when an entry's name is unsafe (unpack.Name), is a link, or is
// repeated, when it has more than Options.MaxFiles files, or when the
// sizes its entries declare add up to more than Options.MaxBytes (rule
// zip-bomb); a file that inflates past its declared size fails to read.
// Folder entries are left out. At most MaxBytes are held in memory.
func Zip(r io.ReaderAt, size int64, o Options) (*Skill, error) {
	maxFiles, maxBytes, _ := o.bounds()
	// Folders count as entries there: a skill's folders are fewer than
	// its files, and deeper nesting is refused by path (unpack.MaxDepth).
	zr, err := unpack.Zip(r, size, unpack.Options{MaxEntries: 2 * maxFiles, MaxBytes: maxBytes})
	if err != nil {
		return nil, zipRefusal(err, maxFiles, maxBytes)
	}
	files := make([]File, 0, len(zr.File))
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		if len(files) == maxFiles {
			return nil, refuse(RuleTooManyFiles, "", "it has over %d files; the limit is %d", maxFiles, maxFiles)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, refuse(RuleNotZip, f.Name, "cannot be read from the archive: %v", err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, int64(f.UncompressedSize64)+1))
		rc.Close()
		if err != nil || uint64(len(data)) != f.UncompressedSize64 {
			return nil, refuse(RuleZipBomb, f.Name, "does not inflate to the size the archive declares")
		}
		files = append(files, File{Path: f.Name, Data: data})
	}
	return Files(files, o)
}

// zipRefusal turns unpack.Zip's error into an *Error.
func zipRefusal(err error, maxFiles int, maxBytes int64) *Error {
	if ue := (*unpack.Error)(nil); errors.As(err, &ue) {
		return pathRefusal(ue.Entry, ue.Reason)
	}
	if !errors.Is(err, unpack.ErrUnsafe) {
		return refuse(RuleNotZip, "", "the body is not a readable zip archive")
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "uncompressed size exceeds"):
		return refuse(RuleZipBomb, "", "its entries inflate to over %d bytes; the limit is %d", maxBytes, maxBytes)
	case strings.Contains(msg, "entries"):
		return refuse(RuleTooManyFiles, "", "it has over %d files; the limit is %d", maxFiles, maxFiles)
	case strings.Contains(msg, "both a file and a folder"):
		return refuse(RuleFileAndFolder, "", "%s", strings.TrimPrefix(msg, unpack.ErrUnsafe.Error()+": "))
	}
	return refuse(RuleNotZip, "", "%s", fmt.Sprint(msg))
}
