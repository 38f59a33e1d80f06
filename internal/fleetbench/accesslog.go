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

	"github.com/skillstore/skillstore/internal/logtext"
)

// ops counts requests by S3 operation ("GetObject", "HeadObject"…), and
// keeps the first few in order.
type ops struct {
	counts map[string]int
	seq    []string // "GetObject .skillstore/current.json": at most maxSeq
	more   int      // requests after those in seq
}

// maxSeq is how many requests ops keeps in order.
const maxSeq = 12

// String renders o as "GetObject=2 HeadObject=1", by operation, or "none".
func (o ops) String() string {
	if len(o.counts) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(o.counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, o.counts[k]))
	}
	return strings.Join(parts, " ")
}

// Sequence renders the first requests in order, each as its operation and
// the last two parts of its key, or "none".
func (o ops) Sequence() string {
	if len(o.seq) == 0 {
		return "none"
	}
	s := strings.Join(o.seq, ", ")
	if o.more > 0 {
		s += fmt.Sprintf(" and %d more", o.more)
	}
	return s
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
	o := ops{counts: map[string]int{}}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if f := strings.Fields(line); len(f) > 10 && strings.HasPrefix(f[2], "[") && strings.HasSuffix(f[3], "]") {
			if op, ok := strings.CutPrefix(f[7], "s3_"); ok {
				o.counts[op]++
				if len(o.seq) < maxSeq {
					o.seq = append(o.seq, op+" "+shortKey(f[8]))
				} else {
					o.more++
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return o, nil
		}
		if err != nil {
			return ops{}, err
		}
	}
}

// shortKey returns the last two parts of an object's key, each cut to 24
// bytes: enough to tell a pointer from a manifest from a blob.
func shortKey(key string) string {
	parts := strings.Split(key, "/")
	parts = parts[max(len(parts)-2, 0):]
	for i, p := range parts {
		parts[i] = logtext.Clip(p, 24)
	}
	return strings.Join(parts, "/")
}

// countRange counts the requests logged in file between byte offsets
// from and to (to < 0: the end of the file).
func countRange(file string, from, to int64) (ops, error) {
	f, err := os.Open(file)
	if err != nil {
		return ops{}, bare(err)
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
