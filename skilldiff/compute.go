package skilldiff

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/markdown"
	"github.com/skillstore/skillstore/internal/textenc"
)

// The sides Compute asks read for.
const (
	SideFrom = 0 // the old version's file
	SideTo   = 1 // the new version's file
)

// Default bounds of Options.
const (
	DefaultMaxFileBytes    = 1 << 20
	DefaultMaxUnifiedBytes = 256 << 10
	DefaultMaxTotalBytes   = 4 << 20
)

// Options bound Compute. The zero value takes the defaults.
type Options struct {
	// MaxFileBytes is the largest file Compute reads (either side): a
	// changed file over it is Truncated, with no Unified, no Binary and
	// no Findings. 1 MiB by default.
	MaxFileBytes int64
	// MaxUnifiedBytes bounds one file's Unified: it is cut at a line
	// (Truncated). 256 KiB by default.
	MaxUnifiedBytes int
	// MaxTotalBytes bounds the Unified of all files together: once they
	// hold it, the changes after are Truncated and not read (no Unified,
	// no Findings). 4 MiB by default.
	MaxTotalBytes int
	// MaxEdits bounds the edit distance, in lines, searched between the
	// two sides of a file (DefaultMaxEdits): past it, or past a fixed
	// number of steps, the lines between the first and last change are
	// shown replaced whole — a correct diff, not a shortest one. So two
	// hostile files cost bounded time and memory.
	MaxEdits int
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxUnifiedBytes <= 0 {
		o.MaxUnifiedBytes = DefaultMaxUnifiedBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxEdits <= 0 {
		o.MaxEdits = DefaultMaxEdits
	}
	return o
}

// ReadFunc returns the bytes of the file at path on one side (SideFrom
// or SideTo). Compute never writes them and may keep parts of them (in
// Findings, in Unified): nobody may change them after read returns.
type ReadFunc func(ctx context.Context, side int, path string) ([]byte, error)

// Compute compares two versions' file lists: a file in to only is
// Added, in from only Removed, in both with another SHA-256 Changed;
// the others are counted in Same without being read. Each change's
// files are read (when both sides are at most MaxFileBytes), and for
// text (as the store decides: internal/textenc) the change gets its
// Unified diff — headers "--- a/PATH" and "+++ b/PATH", "/dev/null" for
// the side it is not in — compared byte for byte, so a line ending or a
// byte order mark changed shows (UTF-16 and Windows-1252 text is
// compared decoded, so a change of encoding alone shows no lines). The
// new side's hidden text is in Findings (Markdown rules for .md files);
// an added file's name is scanned too. A file read is not checked
// against its SHA-256: read does that, as the registry's blob reads do.
//
// The Diff's From and To are left for the caller to set. A path listed
// twice on one side, or a read failing, is an error.
func Compute(ctx context.Context, from, to []File, read ReadFunc, opts Options) (*Diff, error) {
	opts = opts.withDefaults()
	old, err := byPath(from, "from")
	if err != nil {
		return nil, err
	}
	cur, err := byPath(to, "to")
	if err != nil {
		return nil, err
	}
	d := &Diff{Changes: []Change{}}
	for _, f := range to {
		o, ok := old[f.Path]
		switch {
		case !ok:
			d.Changes = append(d.Changes, Change{Path: f.Path, Kind: Added, To: f.SHA256, ToSize: f.Size})
		case o.SHA256 != f.SHA256:
			d.Changes = append(d.Changes, Change{Path: f.Path, Kind: Changed, From: o.SHA256, To: f.SHA256, FromSize: o.Size, ToSize: f.Size})
		default:
			d.Same++
		}
	}
	for _, f := range from {
		if _, ok := cur[f.Path]; !ok {
			d.Changes = append(d.Changes, Change{Path: f.Path, Kind: Removed, From: f.SHA256, FromSize: f.Size})
		}
	}
	slices.SortFunc(d.Changes, func(a, b Change) int { return cmp.Compare(a.Path, b.Path) })
	left := opts.MaxTotalBytes
	for i := range d.Changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &d.Changes[i]
		if left <= 0 {
			c.Truncated = true
			continue
		}
		o := opts
		o.MaxUnifiedBytes = min(o.MaxUnifiedBytes, left)
		cut, err := fill(ctx, c, read, o)
		if err != nil {
			return nil, err
		}
		if left -= len(c.Unified); cut && o.MaxUnifiedBytes < opts.MaxUnifiedBytes {
			left = 0 // the total's bound cut this one
		}
	}
	return d, nil
}

func byPath(files []File, side string) (map[string]File, error) {
	m := make(map[string]File, len(files))
	for _, f := range files {
		if _, dup := m[f.Path]; dup {
			return nil, fmt.Errorf("the %s side lists the file %q twice", side, f.Path)
		}
		m[f.Path] = f
	}
	return m, nil
}

// side is one side of a change, read.
type side struct {
	present bool
	text    string // as compared: UTF-8 bytes as they are (a BOM kept), other encodings decoded
	scanned string // as the store scans it: decoded, a BOM dropped
	binary  bool
}

// fill reads c's sides and sets its Binary, Unified, Truncated and
// Findings; cut says Unified was cut at opts.MaxUnifiedBytes.
func fill(ctx context.Context, c *Change, read ReadFunc, opts Options) (cut bool, err error) {
	if c.Kind == Added {
		c.Findings = hidden.ScanPaths([]string{c.Path})
	}
	if c.FromSize > opts.MaxFileBytes || c.ToSize > opts.MaxFileBytes {
		c.Truncated = true
		return false, nil
	}
	var sides [2]side
	for s, present := range [2]bool{c.Kind != Added, c.Kind != Removed} {
		if !present {
			continue
		}
		data, err := read(ctx, s, c.Path)
		if err != nil {
			return false, err
		}
		if int64(len(data)) > opts.MaxFileBytes {
			c.Truncated = true // larger than its listed size: not compared
			return false, nil
		}
		sides[s] = decode(data)
	}
	if sides[SideFrom].binary || sides[SideTo].binary {
		c.Binary = true
		return false, nil
	}
	if to := sides[SideTo]; to.present {
		for _, f := range hidden.Scan(to.scanned, markdown.IsPath(c.Path)) {
			f.Path = c.Path
			c.Findings = append(c.Findings, f)
		}
	}
	a, b := c.names()
	c.Unified, c.Truncated = unified(a, b, sides[SideFrom].text, sides[SideTo].text, opts.MaxEdits, opts.MaxUnifiedBytes)
	return c.Truncated, nil
}

func decode(data []byte) side {
	text, enc, ok := textenc.DecodeOwned(data)
	if !ok {
		return side{present: true, binary: true}
	}
	s := side{present: true, text: text, scanned: text}
	if enc == textenc.EncodingUTF8 {
		s.text = textenc.OwnedString(data) // the BOM, if any, kept
	}
	return s
}
