package readall_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestRead: whatever the hint says (right, short, long, unknown), Read
// gives the stream's bytes, refuses a stream over the limit, and passes
// a read error on.
func TestRead(t *testing.T) {
	data := strings.Repeat("0123456789", 1000) // 10,000 bytes
	for _, tc := range []struct {
		name        string
		hint, limit int64
		tooLarge    bool
	}{
		{"exact hint", 10000, 20000, false},
		{"short hint", 10, 20000, false},
		{"long hint", 1 << 20, 20000, false},
		{"no hint", -1, 20000, false},
		{"at the limit", 10000, 10000, false},
		{"over the limit", 10000, 9999, true},
		{"over the limit, hint lies", 10, 9999, true},
	} {
		for _, r := range []io.Reader{strings.NewReader(data), iotest.OneByteReader(strings.NewReader(data)), iotest.DataErrReader(strings.NewReader(data))} {
			got, err := readall.Read(r, tc.hint, tc.limit)
			switch {
			case tc.tooLarge && !errors.Is(err, readall.ErrTooLarge):
				t.Errorf("%s: %d bytes, %v; want ErrTooLarge", tc.name, len(got), err)
			case !tc.tooLarge && (err != nil || string(got) != data):
				t.Errorf("%s: %d bytes, %v; want the stream's %d", tc.name, len(got), err, len(data))
			}
		}
	}
	boom := errors.New("boom")
	if _, err := readall.Read(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), 3, 10); !errors.Is(err, boom) {
		t.Errorf("a failing read: %v; want its error", err)
	}
}

// TestReadHoldsAboutLimit: a stream that never ends is refused after the
// limit, with no buffer much past it (the hint, even a huge one, is capped).
func TestReadHoldsAboutLimit(t *testing.T) {
	endless := io.MultiReader(bytes.NewReader(make([]byte, 4096)), testutil.Zeros)
	got, err := readall.Read(endless, 1<<40, 1<<16)
	if !errors.Is(err, readall.ErrTooLarge) || got != nil {
		t.Errorf("%d bytes, %v; want ErrTooLarge", len(got), err)
	}
}
