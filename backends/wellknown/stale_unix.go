//go:build unix

package wellknown

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// abandoned reports whether the folder fi, named for process pid, is this
// user's and pid no longer runs.
func abandoned(pid int, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
