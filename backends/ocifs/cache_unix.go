//go:build unix

package ocifs

import "syscall"

// cacheOpenFlags open a cached blob without following a link or waiting
// on a FIFO put in its place.
const cacheOpenFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
