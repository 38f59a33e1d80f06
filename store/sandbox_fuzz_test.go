package store

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzCleanPath: whatever a caller sends, a path CleanPath accepts stays
// inside the skill folder — a valid fs path, no "..", no trailing slash —
// and a name CheckName accepts cannot move a lookup out of a source root.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"SKILL.md", "a/b.md", "../x", "a/../../x", "./a", "a/", `a\b`, "/etc/passwd", "C:/x", "a\x00b", " a ", "%2e%2e/x", "....//x", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := CleanPath("s", p)
		if err == nil {
			if !fs.ValidPath(clean) || clean == "." || strings.HasSuffix(clean, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(clean, "/../") {
				t.Fatalf("CleanPath(%q) = %q", p, clean)
			}
		}
		if CheckName(p) == nil && (strings.ContainsAny(p, `/\`) || strings.Contains(p, "..") || p == "" || p == "." || hasControl(p)) {
			t.Fatalf("CheckName accepted %q", p)
		}
	})
}
