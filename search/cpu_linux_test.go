package search_test

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used (lock it to
// its goroutine first): what a benchmark's loop costs, whatever else runs
// on the machine.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
