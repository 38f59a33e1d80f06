//go:build !unix

package gitfs

import (
	"errors"
	"os"
)

const noFollow = 0

var errLocked = errors.New("locked")

func lockFile(*os.File) error   { return errors.New("a git cache folder needs a Unix system") }
func unlockFile(*os.File) error { return nil }
func ownedDir(string, bool) error {
	return errors.New("needs a Unix system (ownership cannot be checked)")
}
