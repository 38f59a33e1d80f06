package tools_test

import (
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// FuzzSplitURI: a skill:// URI that SplitURI accepts names a skill that
// store.CheckName accepts, however it was percent-encoded, and the path,
// once cleaned, stays in the skill's folder.
func FuzzSplitURI(f *testing.F) {
	for _, s := range []string{"skill://a/SKILL.md", "skill://..%2F..%2Fetc/SKILL.md", "SKILL://a/b%2Fc", "skill://a%00/x", "skill://a/%2e%2e/x", "file:///etc/passwd", "skill://", "skill:///x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		name, p, err := tools.SplitURI(uri)
		if err != nil {
			return
		}
		if store.CheckName(name) != nil {
			t.Fatalf("SplitURI(%q) gave the name %q", uri, name)
		}
		if clean, err := store.CleanPath(name, p); err == nil && (clean == ".." || len(clean) > 2 && clean[:3] == "../") {
			t.Fatalf("SplitURI(%q) gave the path %q", uri, clean)
		}
	})
}
