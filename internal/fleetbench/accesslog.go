package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// ops counts requests by S3 operation ("GetObject", "HeadObject"…).
type ops map[string]int

// String renders o as "GetObject=2 HeadObject=1", by operation, or "none".
func (o ops) String() string {
	if len(o) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, o[k]))
	}
	return strings.Join(parts, " ")
}

// countOps reads versitygw's access log (--access-log), whose lines are
// those of S3's server access log:
//
//	OWNER BUCKET [TIME ZONE] IP REQUESTER ID OPERATION KEY URI STATUS …
//
// with OPERATION "s3_GetObject" and the like; it counts one request per
// such line, by operation without the "s3_". Other lines (the "log
// starts …" line) are skipped.
func countOps(r io.Reader) (ops, error) {
	counts := ops{}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if f := strings.Fields(line); len(f) > 10 && strings.HasPrefix(f[2], "[") && strings.HasSuffix(f[3], "]") {
			if op, ok := strings.CutPrefix(f[7], "s3_"); ok {
				counts[op]++
			}
		}
		if errors.Is(err, io.EOF) {
			return counts, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// countRange counts the requests logged in file between byte offsets
// from and to (to < 0: the end of the file).
func countRange(file string, from, to int64) (ops, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	if to < 0 {
		to = 1<<63 - 1
	}
	return countOps(io.NewSectionReader(f, from, to-from))
}

// logSize returns the size of file, or 0 if it does not exist yet.
func logSize(file string) (int64, error) {
	fi, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, bare(err)
	}
	return fi.Size(), nil
}

// bare is err without the path an *fs.PathError adds.
func bare(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
