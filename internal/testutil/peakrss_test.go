package testutil

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestPeakRSS: the figure is the child program's, whatever its parent
// holds (the rusage of the wait would report the parent's 256 MiB for
// both children).
func TestPeakRSS(t *testing.T) {
	if os.Getenv("PEAKRSS_CHILD") != "" {
		if os.Getenv("PEAKRSS_CHILD") == "big" {
			b := make([]byte, 192<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			time.Sleep(50 * time.Millisecond) // real time: the parent samples this process's /proc status every 2 ms
			runtime.KeepAlive(b)
		}
		return
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	held := make([]byte, 256<<20) // the parent is large
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	for _, c := range []struct {
		child    string
		min, max int64
	}{{"small", 0, 128 << 20}, {"big", 192 << 20, 1 << 40}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSS$")
		cmd.Env = append(os.Environ(), "PEAKRSS_CHILD="+c.child)
		out, peak, err := PeakRSS(cmd)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.child, err, out)
		}
		if peak <= c.min || peak > c.max {
			t.Errorf("%s child: peak %d MiB, want in (%d, %d] MiB", c.child, peak>>20, c.min>>20, c.max>>20)
		}
	}
	runtime.KeepAlive(held)
}
