package backends_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
)

// TestProvenanceLocation: the location is the source's as backends.Open
// gives it, which holds no credential, with a file:// URL as its path and
// the user's home folder as "~".
func TestProvenanceLocation(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, "skills")
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte(doc("pdf", "Fill PDF forms.")), 0o644); err != nil {
		t.Fatal(err)
	}
	secretURL := "file://ana:hunter2@localhost" + (&url.URL{Path: filepath.ToSlash(dir)}).EscapedPath() + "?token=s3cr3t&sig=abc"
	for _, tc := range []struct{ source, want string }{
		{dir, "~/skills"},
		{secretURL, "~/skills"},
		{"./skills", "./skills"},
	} {
		if tc.source == "./skills" {
			t.Chdir(home)
		}
		src, err := backends.Open(context.Background(), tc.source)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		s, err := store.New([]store.Source{src}, store.Options{Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		sk, err := s.View(nil).Skill(context.Background(), "pdf")
		if err != nil {
			t.Fatal(err)
		}
		if sk.Provenance.Location != tc.want || sk.Provenance.Kind != "local" || sk.Provenance.Source != "project" {
			t.Errorf("%s: provenance %+v; want location %q", redacted(tc.source), *sk.Provenance, tc.want)
		}
		j, _ := json.Marshal(sk.Provenance)
		for _, secret := range []string{"hunter2", "s3cr3t", "ana:", home} {
			if strings.Contains(string(j), secret) {
				t.Errorf("%s: provenance %s holds %q", redacted(tc.source), j, secret)
			}
		}
	}
}

func redacted(source string) string { return backends.Redact(source) }

// doc returns a SKILL.md with the given name and description.
func doc(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nInstructions.\n"
}

// quietLog discards the store's log.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
