package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// openPTY opens a pseudo-terminal: its controlling side and the terminal.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); ptmx.Close() })
	return ptmx, tty
}

// TestTerminalNote tells a person who starts serve in a terminal what it
// is (an MCP server waiting for a client) and what to do instead, and
// tells a client, whose stdin is a pipe, nothing.
func TestTerminalNote(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	_, tty := openPTY(t)
	for _, terminal := range []bool{true, false} {
		cmd := exec.Command(binary, "serve", "-s", dir)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		var errb testutil.SyncBuffer
		cmd.Stderr = &errb
		if terminal {
			cmd.Stdin = tty
		} else {
			w, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		errb.Await(20*time.Second, func(log string) bool { return strings.Contains(log, "serving MCP over stdio") })
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		note := strings.Contains(errb.String(), "skillstore connect --client claude-code") && strings.Contains(errb.String(), "Ctrl-C")
		if note != terminal {
			t.Errorf("stdin a terminal %v: note given %v\n%s", terminal, note, errb.String())
		}
	}
}
