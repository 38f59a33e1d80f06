package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// PeakRSS runs cmd to its end and returns its combined output and the
// peak resident memory of the program it runs, in bytes (0 where
// /proc is missing).
//
// It reads VmHWM from /proc/PID/status every 2 ms while the program runs,
// rather than the rusage of the wait: Linux carries a process's
// high-water mark across exec, and Go starts a child in its parent's
// memory (vfork), so a child's ru_maxrss is at least its parent's RSS
// at the start — a test process's hundreds of MiB, not the program's.
// The mark of the exec'd program is monotonic; the last read before
// its exit is the figure, so a peak in its last 2 ms may be missed.
func PeakRSS(cmd *exec.Cmd) (out []byte, peak int64, err error) {
	var buf SyncBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if hwm := vmHWM(status); hwm > peak {
			peak = hwm
		}
		select {
		case err := <-done:
			return []byte(buf.String()), peak, err
		case <-tick.C:
		}
	}
}

// vmHWM is the VmHWM line of a /proc status file, in bytes; 0 when it
// cannot be read (the process ended).
func vmHWM(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(data, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(line)), " kB"), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}
