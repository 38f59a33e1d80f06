//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// isTerminal reports false: where terminal settings cannot be read, serve
// gives no note.
func isTerminal(*os.File) bool { return false }
