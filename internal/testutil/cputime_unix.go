//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, user and system: what a
// benchmark on a shared machine measures its work by, since its wall time
// counts other processes' turns too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
