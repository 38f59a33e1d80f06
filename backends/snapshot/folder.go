package snapshot

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/skillstore/skillstore/store"
)

// OpenFolder serves src, a local folder (Kind "local"), from its current
// snapshot when `skillstore publish` wrote it (a shared disk: the folder
// holds PointerKey); it returns any other source as it is. The source keeps its
// label, location and kind; closing it closes src's filesystem. On an
// error src is closed. The composer calls it on the local folders
// backends.Open returns: package backends knows no snapshot.
func OpenFolder(ctx context.Context, src store.Source) (store.Source, error) {
	if src.Kind != "local" {
		return src, nil
	}
	if _, err := fs.Stat(src.FS, PointerKey); err != nil {
		return src, nil
	}
	var closeFS func() error
	if c, ok := src.FS.(io.Closer); ok {
		closeFS = c.Close
	}
	pub, err := Open(ctx, NewFSObjects(src.FS), Options{Location: src.Location, Close: closeFS})
	if err != nil {
		if closeFS != nil {
			closeFS()
		}
		return store.Source{}, fmt.Errorf("skills folder %s: its published snapshot cannot be read: %w", src.Location, err)
	}
	src.FS = pub
	return src, nil
}
