// Package skilldiff compares two versions of a skill: the files added,
// removed and changed (by SHA-256), and a unified diff of each changed
// text file. It is a format package: it reads files through a callback
// and imports no store, registry or index.
package skilldiff

import "github.com/skillstore/skillstore/internal/hidden"

// File is one file of a version, as its manifest lists it.
type File struct {
	Path   string // slash-separated, relative to the skill's folder
	SHA256 string // hex
	Size   int64
}

// The kinds of a Change.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Change is one file that differs between two versions.
type Change struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // Added, Removed or Changed
	// From and To are the file's SHA-256 in each version ("" where it is
	// not in that version); FromSize and ToSize its sizes.
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	FromSize int64  `json:"from_size"`
	ToSize   int64  `json:"to_size"`
	// Binary is true when either side is not text: no Unified then.
	Binary bool `json:"binary,omitempty"`
	// Unified is the unified diff of a text file (3 lines of context,
	// headers "--- a/PATH" and "+++ b/PATH", "/dev/null" for the side a
	// file added or removed is not in); "" for a binary file or one not
	// compared (Truncated).
	Unified string `json:"unified,omitempty"`
	// Truncated says Unified was cut at Options.MaxUnifiedBytes, or not
	// computed because the file is over Options.MaxFileBytes.
	Truncated bool `json:"truncated,omitempty"`
	// Findings are the hidden-text findings of the new side (To) of this
	// file: what a reviewer must look at before approving.
	Findings []hidden.Finding `json:"findings,omitempty"`
}

// Diff is what changed from one version to another.
type Diff struct {
	From    string   `json:"from"` // version IDs (or labels) compared
	To      string   `json:"to"`
	Changes []Change `json:"files"` // sorted by path
	Same    int      `json:"unchanged"`
}
