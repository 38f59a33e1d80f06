// Package lockfile reads and writes skills-lock.json, the project lock
// file of the vercel "skills" CLI (npm package skills, checked against
// 1.7.4), so that either tool can read and check a lock the other wrote.
//
// The file is JSON.stringify(lock, null, 2) and a newline: "version" (1),
// then "skills", an object keyed by skill name in JavaScript's default
// sort order (UTF-16 code units), each entry holding "source",
// "sourceUrl" (git sources), "ref", "sourceType", "skillPath" and
// "computedHash" (ComputedHash) and whatever else the CLI adds
// ("wellKnownDigest", "version", "via", …). The CLI keeps an entry's
// fields it does not know when it rewrites the file, so skillstore keeps
// its pins in one such field, "skillstore" (Pin). This package keeps
// every field it does not know, in its place, in entries and at the top
// level; the CLI itself drops unknown top-level fields when it writes.
//
// Limits: numbers in unknown fields are written as JavaScript prints them
// (1.0 becomes 1); a known field holding an empty string is left out, as
// it is when the CLI has no value for it; a string that is not valid
// UTF-8 is read with U+FFFD in place of the bad bytes, as Node reads it.
package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FileName is the lock's name in a project's root folder.
const FileName = "skills-lock.json"

// Version is the format version the CLI writes; it reads a lock of an
// older version as empty, and this package refuses one.
const Version = 1

// Lock is a skills-lock.json.
type Lock struct {
	// Version is the format version (Version for a new lock).
	Version int
	// Skills maps a skill's name to its entry.
	Skills map[string]*Entry

	top value // the document as read: its other top-level fields
}

// Entry is one skill of a lock. Its fields are the CLI's; an empty field
// is left out when written (Source, SourceType and ComputedHash are
// always written).
type Entry struct {
	// Source says where the skill came from as the CLI records it: an
	// "owner/repo", a URL, a local folder ("./skills", relative to the
	// lock's folder; see LocalSource), an npm package name.
	Source string
	// SourceURL is the URL to fetch a git source from.
	SourceURL string
	// Ref is the git ref asked for, when one was.
	Ref string
	// SourceType is the CLI's kind of source: "github", "gitlab", "git",
	// "local", "well-known", "node_modules", … (skillstore adds
	// "skillstore" for sources the CLI cannot read: buckets, OCI).
	SourceType string
	// SkillPath is the skill's SKILL.md in its source, for repositories.
	SkillPath string
	// ComputedHash is ComputedHash of the installed folder.
	ComputedHash string
	// Skillstore is skillstore's pin, nil when skillstore did not install it.
	Skillstore *Pin

	raw value // the entry as read: its other fields, and their order
}

// Pin is what skillstore pins a skill to, kept in an entry's "skillstore"
// field, which the CLI carries along and ignores.
type Pin struct {
	// Digest is FilesDigest of the skill's files: "sha256:" and hex.
	Digest string `json:"digest"`
	// Revision is the source's revision the skill was read from (a git
	// commit, a published snapshot's ID), when the source has revisions.
	Revision string `json:"revision,omitempty"`
	// Version is the skill's version ID in a registry that versions
	// skills one by one.
	Version string `json:"version,omitempty"`
	// Signer is the key that signed what was installed, when a trust
	// list verified it.
	Signer *Signer `json:"signer,omitempty"`
}

// Signer names a signing key (store.Signer's fields).
type Signer struct {
	Fingerprint string `json:"fingerprint"`
	Principal   string `json:"principal,omitempty"`
	Kind        string `json:"kind,omitempty"`
}

// New returns an empty lock.
func New() *Lock { return &Lock{Version: Version, Skills: map[string]*Entry{}} }

// known are an entry's fields Entry holds, in the order the CLI writes
// them in a new entry.
var known = []string{"source", "sourceUrl", "ref", "sourceType", "skillPath", "computedHash", "skillstore"}

// Parse reads a skills-lock.json. It fails on text that is not JSON, on a
// "version" that is not a whole number of at least 1, on a missing
// "skills" object, and on a known field of the wrong type. A leading
// byte order mark is skipped.
func Parse(b []byte) (*Lock, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	top, err := parseValue(b)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if top.kind != '{' {
		return nil, errors.New("not a JSON object")
	}
	l := &Lock{Skills: map[string]*Entry{}, top: top}
	v, ok := top.get("version")
	if !ok || v.kind != '0' {
		return nil, errors.New(`"version" is missing or not a number`)
	}
	if _, err := fmt.Sscan(jsNumber(v.str), &l.Version); err != nil || jsNumber(v.str) != fmt.Sprint(l.Version) || l.Version < Version {
		return nil, fmt.Errorf(`"version" %s is not one this reads (%d or later)`, v.str, Version)
	}
	skills, ok := top.get("skills")
	if !ok || skills.kind != '{' {
		return nil, errors.New(`"skills" is missing or not an object`)
	}
	for _, m := range skills.obj {
		e, err := parseEntry(m.val)
		if err != nil {
			return nil, fmt.Errorf("skills[%q]: %w", m.key, err)
		}
		l.Skills[m.key] = e
	}
	return l, nil
}

func parseEntry(v value) (*Entry, error) {
	if v.kind != '{' {
		return nil, errors.New("not an object")
	}
	e := &Entry{raw: v}
	str := map[string]*string{"source": &e.Source, "sourceUrl": &e.SourceURL, "ref": &e.Ref, "sourceType": &e.SourceType, "skillPath": &e.SkillPath, "computedHash": &e.ComputedHash}
	for _, m := range v.obj {
		if p, ok := str[m.key]; ok {
			if m.val.kind != '"' {
				return nil, fmt.Errorf("%q is not a string", m.key)
			}
			*p = m.val.str
		}
	}
	if pv, ok := v.get("skillstore"); ok {
		var buf bytes.Buffer
		encode(&buf, pv, "")
		e.Skillstore = new(Pin)
		if err := json.Unmarshal(buf.Bytes(), e.Skillstore); err != nil || pv.kind != '{' {
			return nil, errors.New(`"skillstore" is not skillstore's pin`)
		}
	}
	return e, nil
}

// Marshal returns the lock as the CLI writes it (see the package doc),
// with the fields it does not know kept in place: an entry read keeps
// its fields' order, and a field new to it goes last.
func (l *Lock) Marshal() []byte {
	top := value{kind: '{', obj: slices.Clone(l.top.obj)}
	top.set("version", value{kind: '0', str: fmt.Sprint(l.Version)})
	skills := value{kind: '{'}
	for _, name := range l.Names() {
		skills.obj = append(skills.obj, member{name, l.Skills[name].value()})
	}
	top.set("skills", skills)
	var buf bytes.Buffer
	encode(&buf, top, "")
	buf.WriteByte('\n')
	return buf.Bytes()
}

// Names returns the skills' names in the order the lock lists them.
func (l *Lock) Names() []string {
	names := make([]string, 0, len(l.Skills))
	for n := range l.Skills {
		names = append(names, n)
	}
	slices.SortFunc(names, compareUTF16)
	return names
}

// value is the entry as a JSON object.
func (e *Entry) value() value {
	v := value{kind: '{', obj: slices.Clone(e.raw.obj)}
	for _, k := range known {
		var kv value
		switch k {
		case "source":
			kv = stringValue(e.Source)
		case "sourceUrl":
			kv = stringValue(e.SourceURL)
		case "ref":
			kv = stringValue(e.Ref)
		case "sourceType":
			kv = stringValue(e.SourceType)
		case "skillPath":
			kv = stringValue(e.SkillPath)
		case "computedHash":
			kv = stringValue(e.ComputedHash)
		case "skillstore":
			if e.Skillstore == nil {
				v.del(k)
				continue
			}
			kv = e.Skillstore.value()
		}
		if kv.kind == '"' && kv.str == "" && k != "source" && k != "sourceType" && k != "computedHash" {
			v.del(k)
			continue
		}
		v.set(k, kv)
	}
	return v
}

func (p *Pin) value() value {
	v := value{kind: '{'}
	v.set("digest", stringValue(p.Digest))
	if p.Revision != "" {
		v.set("revision", stringValue(p.Revision))
	}
	if p.Version != "" {
		v.set("version", stringValue(p.Version))
	}
	if s := p.Signer; s != nil {
		sv := value{kind: '{'}
		sv.set("fingerprint", stringValue(s.Fingerprint))
		if s.Principal != "" {
			sv.set("principal", stringValue(s.Principal))
		}
		if s.Kind != "" {
			sv.set("kind", stringValue(s.Kind))
		}
		v.set("signer", sv)
	}
	return v
}

// Read reads the lock at path; a missing file is an empty lock (New).
func Read(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil
	}
	if err != nil {
		return nil, err
	}
	l, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// WriteFile writes the lock to path atomically: to a temporary file in
// its folder, synced, then renamed over path, so a reader sees the old
// lock or the new one, never part of one.
func (l *Lock) WriteFile(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(l.Marshal())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// LocalSource is how the CLI records a local folder source in a lock in
// lockDir: relative to lockDir with "/" separators and "./" before it
// ("." for lockDir itself; "../x" outside it), or absolute when on
// another volume.
func LocalSource(source, lockDir string) string {
	abs := source
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(lockDir, source)
	}
	rel, err := filepath.Rel(lockDir, abs)
	if err != nil || filepath.IsAbs(rel) {
		return filepath.ToSlash(abs)
	}
	rel = filepath.ToSlash(rel)
	switch {
	case rel == ".":
		return "."
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return rel
	}
	return "./" + rel
}
