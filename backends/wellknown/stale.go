package wellknown

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tempPrefix starts the name of every source's temporary folder; the
// process ID follows it, then MkdirTemp's random part.
const tempPrefix = "skillstore-wellknown-"

// swept holds the parent folders already swept by this process.
var swept sync.Map

// sweepStale removes, once per parent folder and process, the temporary
// folders that processes which no longer run left in parent (a server
// killed before Close: up to MaxDiskBytes each, which a crash loop would
// pile up). Only folders this user owns, named by tempPrefix and a process
// ID that is not running, are removed; anything else is left alone, as is
// every error (the sweep is housekeeping, never a reason to fail a read).
func sweepStale(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	if _, done := swept.LoadOrStore(parent, true); done {
		return
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && abandoned(pid, fi) {
			os.RemoveAll(p)
		}
	}
}
