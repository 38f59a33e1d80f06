package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/store"
)

// lockPins are serve --lock's pins: the store serves the skills the lock
// names, each only when its files are the ones the lock names
// (store.Pins), and a registry serves the version each pins
// (registry.Options.Pins).
type lockPins struct {
	lock *lockfile.Lock
}

var _ store.Pins = (*lockPins)(nil)

// readLockPins reads the lock at path for serve --lock. Unlike
// lockfile.Read, a missing file is an error: a server told to serve a
// lock serves nothing without one.
func readLockPins(path string) (*lockPins, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--lock: %w", err)
	}
	l, err := lockfile.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("--lock %s: %w", filepath.Base(path), err)
	}
	return &lockPins{lock: l}, nil
}

// Pinned reports whether the lock names a skill called name.
func (p *lockPins) Pinned(name string) bool { return p.lock.Skills[name] != nil }

// Version returns the registry version the lock pins skill name to, if
// it pins one (registry.Options.Pins).
func (p *lockPins) Version(name string) (string, bool) {
	e := p.lock.Skills[name]
	if e == nil || e.Skillstore == nil || e.Skillstore.Version == "" {
		return "", false
	}
	return e.Skillstore.Version, true
}

// Verify checks copy sk against its entry: first its registry version's
// digest against the pin's, without reading a file, then its files, as
// installed (the document as SKILL.md), against the entry's computedHash
// and the pin's digest. An entry with neither is not served: it names no
// bytes.
func (p *lockPins) Verify(ctx context.Context, sk *store.Skill, files *store.SkillFiles) error {
	e := p.lock.Skills[sk.Name]
	if e == nil {
		return fmt.Errorf("%s does not pin it", lockfile.FileName)
	}
	pin := e.Skillstore
	digest := ""
	if pin != nil {
		digest = pin.Digest
	}
	if e.ComputedHash == "" && digest == "" {
		return fmt.Errorf("its entry in %s has no computedHash nor skillstore digest to check it against", lockfile.FileName)
	}
	var v *store.SkillVersion
	if sk.Provenance != nil {
		v = sk.Provenance.Version
	}
	if v != nil && v.Digest != "" && digest != "" {
		if v.Digest != digest {
			return fmt.Errorf("its version %s has digest %s; the lock pins %s", v.ID, v.Digest, pinText(pin))
		}
		digest = "" // checked
	}
	// Each file is read once: for computedHash, and for its own digest.
	installed := func(fp string) string {
		if fp == sk.DocPath {
			return store.DocName // as install writes it
		}
		return fp
	}
	stored := make(map[string]string, len(files.List))
	paths := make([]string, 0, len(files.List))
	for _, f := range files.List {
		stored[installed(f.Path)] = f.Path
		paths = append(paths, installed(f.Path))
	}
	sums := make(map[string]string, len(paths))
	read := func(ip string) ([]byte, error) {
		b, err := files.Read(ctx, stored[ip])
		if err != nil {
			return nil, err
		}
		s := sha256.Sum256(b)
		sums[ip] = hex.EncodeToString(s[:])
		return b, nil
	}
	hash, got := "", ""
	if e.ComputedHash != "" {
		h, err := lockfile.HashFiles(slices.Clone(paths), read)
		if err != nil {
			return fmt.Errorf("its files could not be read to check them against the lock: %s", errorText(err))
		}
		hash = h
	}
	if digest != "" {
		ds := make([]lockfile.FileDigest, 0, len(paths))
		for _, ip := range paths {
			if sums[ip] == "" { // skipped by computedHash (node_modules), or not hashed
				if _, err := read(ip); err != nil {
					return fmt.Errorf("its files could not be read to check them against the lock: %s", errorText(err))
				}
			}
			ds = append(ds, lockfile.FileDigest{Path: ip, SHA256: sums[ip]})
		}
		got = lockfile.FilesDigest(ds)
	}
	if have, want := pinMismatch(e, got, hash); have != "" {
		return fmt.Errorf("its files have %s; the lock pins %s", have, want)
	}
	return nil
}

// pinText names a pin in a message: its version, if any, and its digest.
func pinText(p *lockfile.Pin) string {
	if p.Version != "" {
		return "version " + p.Version + " (digest " + p.Digest + ")"
	}
	return p.Digest
}

// storePins is g's pins as the store's option: nil without --lock.
func (g *globals) storePins() store.Pins {
	if g.pins == nil {
		return nil
	}
	return g.pins
}

// reportUnserved logs, once the first catalog is built, each skill the
// lock names that no source serves nor withholds: a lock naming a skill
// its sources no longer have. A withheld skill is the store's to report.
func reportUnserved(ctx context.Context, s *store.Store, p *lockPins) {
	v := s.View(nil)
	for _, name := range p.lock.Names() {
		if _, err := v.Skill(ctx, name); errors.Is(err, store.ErrSkillNotFound) {
			slog.Warn("a skill the lock pins is in no source: it is not served", "skill", name)
		}
	}
}
