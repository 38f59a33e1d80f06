package artifact

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/testutil"
)

// TestSpillWithoutTempFolder: when no temporary file can be made for a
// large archive, it is held in memory, and the warning says
// why without the temporary folder's path (a host path).
func TestSpillWithoutTempFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	t.Setenv("TMPDIR", missing)
	logger, log := testutil.TextLog()
	w := newSpillWriter(4, logger)
	if _, err := w.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	a, err := w.finish("archive")
	if err != nil {
		t.Fatal(err)
	}
	if a.file != nil || a.Size != 10 {
		t.Errorf("artifact: file %v, size %d; want held in memory, 10 bytes", a.file, a.Size)
	}
	want := `level=WARN msg="no temporary file for a large archive; it is held in memory instead" err="no such file or directory"` + "\n"
	if got := log.String(); got != want || strings.Contains(got, missing) {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}
