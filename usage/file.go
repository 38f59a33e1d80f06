package usage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// fileVersion is the version of the file's format.
const fileVersion = 1

// MaxFileSize bounds the usage file read: a larger file is refused as
// corrupt. The defaults' worst case fits well within it.
const MaxFileSize = 256 << 20

// fileJSON is the usage file: the salt of the principals' hashes, the
// totals and one record per skill. Principals are hashes, in hex.
type fileJSON struct {
	Version   int         `json:"version"`
	Salt      string      `json:"salt"`
	Loads     uint64      `json:"loads"`
	Untracked uint64      `json:"untracked_loads,omitempty"`
	Skills    []skillJSON `json:"skills"`
}

type skillJSON struct {
	Stat
	Hashes []string `json:"principal_hashes,omitempty"`
}

// File is what a usage file holds, as ReadFile returns it: no principal
// hashes.
type File struct {
	Loads     uint64
	Untracked uint64
	Skills    []Stat // most loaded first
}

// ReadFile reads the usage file at path for a report. A missing file is
// an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadFile(path string) (File, error) {
	f, err := readFile(path)
	if err != nil {
		return File{}, err
	}
	out := File{Loads: f.Loads, Untracked: f.Untracked, Skills: make([]Stat, len(f.Skills))}
	for i, s := range f.Skills {
		out.Skills[i] = s.Stat
	}
	Sort(out.Skills)
	return out, nil
}

// readFile reads and checks the file at path.
func readFile(path string) (*fileJSON, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() > MaxFileSize {
		return nil, fmt.Errorf("usage file %s: %d bytes, more than the %d allowed", path, st.Size(), MaxFileSize)
	}
	var f fileJSON
	if err := json.NewDecoder(fh).Decode(&f); err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	if f.Version != fileVersion {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("version %d, not %d", f.Version, fileVersion)}
	}
	return &f, nil
}

// CorruptError is a usage file that cannot be parsed.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return "usage file " + e.Path + " is not a usage file: " + e.Err.Error()
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Open returns a counter restored from path and saved to it by Save and
// Persist. It always returns a usable counter; the error says what went
// wrong with the file, for the caller to report:
//   - missing: no error, counting starts from zero;
//   - corrupt (a *CorruptError): counting starts from zero and the file is
//     renamed to path+".corrupt", so the next save does not destroy it;
//   - unreadable: counting starts from zero, the file is left as it is.
//
// Skills past opts.MaxSkills and principals past opts.MaxPrincipals in
// the file are dropped as Record drops them.
func Open(path string, opts Options) (*Counter, error) {
	c := New(opts)
	c.file = path
	f, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		var ce *CorruptError
		if errors.As(err, &ce) {
			if rerr := os.Rename(path, path+".corrupt"); rerr != nil {
				err = fmt.Errorf("%w (and it could not be set aside: %v)", err, rerr)
			} else {
				err = fmt.Errorf("%w; counting starts from zero, the file kept as %s", err, filepath.Base(path)+".corrupt")
			}
		}
		return c, err
	}
	if err := c.restore(f); err != nil {
		c = New(opts)
		c.file = path
		return c, fmt.Errorf("%w; counting starts from zero", &CorruptError{Path: path, Err: err})
	}
	return c, nil
}

// restore loads f into the empty counter c.
func (c *Counter) restore(f *fileJSON) error {
	salt, err := base64.StdEncoding.DecodeString(f.Salt)
	if err != nil || len(salt) != len(c.salt) {
		return errors.New("bad salt")
	}
	copy(c.salt[:], salt)
	c.loads, c.untracked = f.Loads, f.Untracked
	for _, s := range f.Skills {
		if s.Skill == "" {
			return errors.New("a skill without a name")
		}
		if _, dup := c.skills[s.Skill]; dup {
			return fmt.Errorf("skill %q twice", s.Skill)
		}
		if len(c.skills) >= c.opts.MaxSkills {
			c.untracked += s.Loads
			continue
		}
		e := &entry{loads: s.Loads, more: s.MorePrincipals, last: s.LastUsed}
		for _, h := range s.Hashes {
			v, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				return fmt.Errorf("skill %q: bad principal hash", s.Skill)
			}
			if len(e.principals) >= c.opts.MaxPrincipals {
				e.more = true
				break
			}
			if e.principals == nil {
				e.principals = make(map[uint64]struct{}, len(s.Hashes))
			}
			e.principals[v] = struct{}{}
		}
		c.skills[s.Skill] = e
	}
	return nil
}

// snapshot returns the counter as the file holds it, and clears dirty.
func (c *Counter) snapshot() fileJSON {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := fileJSON{Version: fileVersion, Salt: base64.StdEncoding.EncodeToString(c.salt[:]), Loads: c.loads, Untracked: c.untracked,
		Skills: make([]skillJSON, 0, len(c.skills))}
	for name, e := range c.skills {
		s := skillJSON{Stat: e.stat(name), Hashes: make([]string, 0, len(e.principals))}
		for h := range e.principals {
			s.Hashes = append(s.Hashes, strconv.FormatUint(h, 16))
		}
		slices.Sort(s.Hashes)
		f.Skills = append(f.Skills, s)
	}
	c.dirty = false
	return f
}

// Save writes the counter to its file (Open's path) atomically: to a
// temporary file in its folder, synced, then renamed over it. A counter
// made by New has no file: Save does nothing. A failed save is counted
// in Totals.SaveFailures and the counts stay in memory, to be written by
// the next save.
func (c *Counter) Save() error {
	if c.file == "" {
		return nil
	}
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	f := c.snapshot()
	slices.SortFunc(f.Skills, func(a, b skillJSON) int { return compare(a.Stat, b.Stat) }) // a stable order to read
	err := writeAtomic(c.file, f)
	if err != nil {
		c.mu.Lock()
		c.saveFailures++
		c.dirty = true
		c.mu.Unlock()
	}
	return err
}

// writeAtomic writes f to path through a temporary file and a rename.
func writeAtomic(path string, f fileJSON) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Persist saves the counter every interval (when it changed) until ctx
// ends, then once more, and returns. A failing save is logged on log
// when it starts failing and when it recovers, not at every interval;
// counting goes on in memory meanwhile.
func (c *Counter) Persist(ctx context.Context, every time.Duration, log *slog.Logger) {
	if c.file == "" {
		<-ctx.Done()
		return
	}
	if log == nil {
		log = slog.Default()
	}
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.saveLogged(log, true)
			return
		case <-t.C:
			c.saveLogged(log, false)
		}
	}
}

// saveLogged saves when the counter changed (or always, when final) and
// logs a change between failing and working.
func (c *Counter) saveLogged(log *slog.Logger, final bool) {
	c.mu.Lock()
	dirty := c.dirty
	c.mu.Unlock()
	if !dirty && !final {
		return
	}
	err := c.Save()
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	switch {
	case err != nil && (!c.failing || final):
		log.Warn("usage file not written; counting goes on in memory", "file", c.file, "err", err)
	case err == nil && c.failing:
		log.Info("usage file written again", "file", c.file)
	}
	c.failing = err != nil
}
