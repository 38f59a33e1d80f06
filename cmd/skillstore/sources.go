package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// sourceSpec is one --source value: an optional label and a path or URL.
type sourceSpec struct {
	label, location string
}

var labelRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// parseSourceSpec reads "[LABEL=]PATH|URL". A label is a short word before
// the first "="; anything else (a URL with "=" in its query) is a location.
func parseSourceSpec(s string) sourceSpec {
	s = strings.TrimSpace(s)
	if label, loc, ok := strings.Cut(s, "="); ok && labelRE.MatchString(label) && !strings.Contains(label, "://") {
		return sourceSpec{label: strings.ToLower(label), location: loc}
	}
	return sourceSpec{location: s}
}

// splitSourcesEnv splits SKILLSTORE_SOURCES on commas and newlines.
func splitSourcesEnv(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// conventionalSources are the folders searched when no source is given:
// project folders under the working directory, then personal ones.
func conventionalSources() []sourceSpec {
	specs := []sourceSpec{
		{"project", filepath.Join(".", ".agents", "skills")},
		{"project", filepath.Join(".", ".claude", "skills")},
	}
	if home, err := os.UserHomeDir(); err == nil {
		specs = append(specs,
			sourceSpec{"personal", filepath.Join(home, ".agents", "skills")},
			sourceSpec{"personal", filepath.Join(home, ".claude", "skills")},
		)
	}
	return specs
}

// openedSources are the sources a command reads.
type openedSources struct {
	sources  []store.Source
	trust    trustLists
	store    *store.Store       // the store over them, if one was made
	registry *registry.Registry // serve --registry's, if given
	closeReg func()
}

// Close closes every source and stops watching their trust files. The
// store over them is told first (store.Store.Close), so that a listing
// under way when a source closes is no source failure.
func (o *openedSources) Close() {
	if o.store != nil {
		o.store.Close()
	}
	for _, src := range o.sources {
		src.Close()
	}
	if o.closeReg != nil {
		o.closeReg()
	}
	o.trust.Close()
}

// openSources opens the sources in priority order: the flags, else
// SKILLSTORE_SOURCES, else the conventional folders that exist, else the
// built-in examples (with a note on stderr).
//
// A source URL's trusted-signers=FILE option, else trustedSigners (the
// --trusted-signers flag) when set, is the source's signer policy: it then
// serves only signed snapshots or commits, and a source that cannot be
// verified fails the command.
func openSources(ctx context.Context, flags []string, trustedSigners string, reg *registryFlags, stderr io.Writer) (*openedSources, error) {
	var specs []sourceSpec
	raw := flags
	if len(raw) == 0 {
		raw = splitSourcesEnv(os.Getenv("SKILLSTORE_SOURCES"))
	}
	for _, f := range raw {
		specs = append(specs, parseSourceSpec(f))
	}
	explicit := len(specs) > 0
	bundled, err := openBundled()
	if err != nil {
		return nil, err
	}
	if !explicit && bundled == nil {
		for _, c := range conventionalSources() {
			if st, err := os.Stat(c.location); err == nil && st.IsDir() {
				specs = append(specs, c)
			}
		}
	}
	o := &openedSources{}
	for _, spec := range specs {
		src, err := openSource(ctx, spec, trustedSigners, &o.trust)
		if err != nil {
			o.Close()
			if bundled != nil {
				bundled.Close()
			}
			shown, _, _ := splitTrust(spec.location) // the option names a host path
			return nil, fmt.Errorf("source %s: %w", backends.Redact(shown), stripHost(err))
		}
		if spec.label != "" {
			src.Label = spec.label
		}
		src.Location = displayLocation(src.Location)
		src.Grouper = backends.Plugins // Agent Plugins in any source
		o.sources = append(o.sources, src)
	}
	if reg != nil && reg.url != "" {
		var trust func() *sshsig.AllowedSigners
		if trustedSigners != "" {
			if trust, err = o.trust.load(trustedSigners); err != nil {
				o.Close()
				return nil, err
			}
		}
		var reviewers func() *sshsig.AllowedSigners
		if reg.reviewerSigners != "" {
			if reviewers, err = o.trust.load(backends.ExpandHome(reg.reviewerSigners)); err != nil {
				o.Close()
				return nil, fmt.Errorf("--reviewer-signers: %w", err)
			}
		}
		if o.registry, o.closeReg, err = openRegistry(ctx, reg, trust, reviewers); err != nil {
			o.Close()
			return nil, err
		}
		// A channel's source first: a caller given the channel gets its
		// copy; others, who cannot see it, the registry's own.
		for _, c := range reg.channels {
			src := o.registry.ChannelSource(access.ChannelLabel(reg.label, c), c)
			src.Grouper = backends.Plugins
			o.sources = append(o.sources, src)
		}
		src := o.registry.Source(reg.label)
		src.Grouper = backends.Plugins
		o.sources = append(o.sources, src)
	}
	if bundled != nil {
		if trustedSigners != "" {
			o.Close()
			bundled.Close()
			return nil, errors.New("--trusted-signers cannot verify the skills this executable carries (a bundle is not signed): serve them without it, or publish them as a signed snapshot")
		}
		bundled.Grouper = backends.Plugins
		o.sources = append(o.sources, *bundled) // after --source: theirs win on a name clash
	}
	if len(o.sources) == 0 {
		fmt.Fprintln(stderr, "skillstore: no skills folder found (./.agents/skills, ./.claude/skills, ~/.agents/skills, ~/.claude/skills); serving the built-in example skills. Give --source DIR|URL to serve your own.")
		src, err := backends.Open(ctx, "builtin://")
		if err != nil {
			return nil, err
		}
		o.sources = append(o.sources, src)
	}
	return o, nil
}

// openBundled opens the skills this executable carries (skillstore
// bundle), or returns nil when it carries none.
func openBundled() (*store.Source, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil // no executable to read: nothing bundled to serve
	}
	src, ok, err := backends.OpenBundle(exe, backends.ArchiveOptions{})
	switch {
	case errors.Is(err, backends.ErrDamagedBundle):
		return nil, err
	case err != nil || !ok:
		return nil, nil // an executable that cannot be read (mode 0111) carries nothing it can serve
	}
	return &src, nil
}

// openSource opens one source and applies its signer policy.
func openSource(ctx context.Context, spec sourceSpec, trustedSigners string, trust *trustLists) (store.Source, error) {
	location, file, err := splitTrust(spec.location)
	if err != nil {
		return store.Source{}, err
	}
	if file == "" {
		file = trustedSigners
	}
	if file != "" && isGitURL(location) && (hasGitVerify(location) || isKeyring(file)) {
		// A git source's own verify= wins over the flag; an OpenPGP
		// keyring, which git sources alone take, becomes their verify=
		// (read once). An allowed-signers file applies as it does to
		// snapshots: reloaded, asked for at each check.
		return backends.Open(ctx, withGitVerify(location, file))
	}
	src, err := backends.Open(ctx, location)
	if err == nil {
		src, err = snapshot.OpenFolder(ctx, src) // a local folder `skillstore publish` wrote
	}
	if err != nil || file == "" {
		return src, err
	}
	policy, err := trust.load(file)
	if err == nil {
		err = backends.RequireSigners(ctx, src, policy)
	}
	if err != nil {
		src.Close()
		return store.Source{}, err
	}
	return src, nil
}

// displayLocation shows a local path relative to the home directory as
// "~/…", so the Skill tool's "Path:" line does not reveal the user name.
func displayLocation(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, loc); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(loc) {
			return filepath.ToSlash(filepath.Join("~", rel))
		}
	}
	return filepath.ToSlash(loc)
}

// stripHost keeps an error's own words; backends already redact credentials.
func stripHost(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
