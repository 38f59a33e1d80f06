package snapshot

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/store"
)

// writer is one publish under way.
type writer struct {
	src     fs.FS
	dst     Bucket
	opts    PublishOptions // Transfers set
	obs     Observer
	r       *Report
	skills  []SkillFiles
	blobs   *blobSet      // the bucket's blobs, and those uploaded since
	prev    *previous     // the snapshot whose entries unchanged files take, while files are done; nil for none (see base)
	seq     uint64        // the sequence of the snapshot the new one follows (see base)
	records records       // the manifest's, each skill's encoded once its files are
	bigFile chan struct{} // held by the transfer that has a file over spoolLimit in memory
	lock    *heldLock     // the folder's publish lock (a no-op one for a dry run)
}

// layout is what writeFiles learns of the files before it reads one: where
// each skill's files start in the sequence of all files, each file's size
// and time, which of them are reused, and the previous snapshot's skill
// of each skill. It takes 17 bytes a file: no entry of a file is made
// before the file is done.
type layout struct {
	start  []int   // by skill: the index of its first file
	size   []int64 // by file
	mod    []int64 // by file: its modification time, Unix nanoseconds
	reused []bool  // by file
	prev   []int   // by skill: its index in w.prev, or -1
}

// writeFiles writes the files of w.skills and encodes the manifest's
// records (w.records), in two passes on opts.Transfers goroutines: every
// file is looked at (survey), and those found unchanged are to take the
// previous snapshot's entry; then the others are read and their content
// uploaded if the bucket lacks it. The observer hears of every file in
// order, from this goroutine, and the report counts them; the first
// failure stops both passes and is returned.
func (w *writer) writeFiles(ctx context.Context, ptr *Pointer) error {
	p := &layout{start: make([]int, len(w.skills)+1), prev: make([]int, len(w.skills))}
	for i, sk := range w.skills {
		p.start[i+1] = p.start[i] + len(sk.Files)
		p.prev[i] = -1
	}
	n := p.start[len(w.skills)]
	p.size, p.mod, p.reused = make([]int64, n), make([]int64, n), make([]bool, n)
	defer func() { w.prev = nil }()
	if so, ok := w.obs.(SurveyObserver); ok {
		so.Surveying(len(w.skills), n)
	}
	if err := w.survey(ctx, p, ptr); err != nil {
		return err
	}
	t := Totals{Files: n}
	for k, size := range p.size {
		t.Bytes += size
		if p.reused[k] {
			t.Reused++
			t.ReusedBytes += size
		}
	}
	w.obs.Start(t)
	if err := w.transfer(ctx, p); err != nil {
		return err
	}
	w.obs.FilesDone()
	return nil
}

// survey looks at every file (stat), while the previous snapshot is read
// (base: into w.prev, unless opts.Checksum is set, and its sequence into
// w.seq) and the bucket's blobs listed; then it marks the files unchanged since
// (reuse).
func (w *writer) survey(ctx context.Context, p *layout, ptr *Pointer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	listed := make(chan error, 1)
	go func() {
		var err error
		w.prev, w.seq, err = base(ctx, w.dst, ptr, w.opts)
		if err == nil {
			w.blobs, err = listBlobs(ctx, w.dst, w.opts.Transfers, w.prev.files())
		}
		if err != nil {
			cancel(err)
		}
		listed <- err
	}()
	err := forEach(ctx, w.opts.Transfers, len(w.skills), func(_ context.Context, i int) error {
		return w.stat(i, p)
	})
	if err != nil {
		cancel(err)
	}
	if lerr := <-listed; err == nil {
		err = lerr
	}
	if err != nil || w.prev == nil {
		return err
	}
	w.blobs.usePrevious(w.prev)
	if w.prev.c.header.Scanner != hidden.Version {
		return nil // its findings are another scanner's: every file is read and scanned again
	}
	return forEach(ctx, w.opts.Transfers, len(w.skills), func(_ context.Context, i int) error {
		w.reuse(i, p)
		return nil
	})
}

// stat looks at skill i's files: each must be a regular file (checked
// without opening it, so a FIFO never blocks). It notes each one's size
// and time.
func (w *writer) stat(i int, p *layout) error {
	sk := w.skills[i]
	for j, rel := range sk.Files {
		name := sk.Dir + "/" + rel
		fi, err := fs.Stat(w.src, name)
		if err == nil && !fi.Mode().IsRegular() {
			err = errNotRegular
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, reason(err))
		}
		k := p.start[i] + j
		p.size[k], p.mod[k] = fi.Size(), fi.ModTime().UnixNano()
	}
	return nil
}

// reuse marks skill i's files unchanged since the previous snapshot: the
// same size and time, and their blob in the bucket. The emitter takes
// their entries from that snapshot (reused).
func (w *writer) reuse(i int, p *layout) {
	sk := w.skills[i]
	p.prev[i] = w.prev.skill(sk.Dir, sk.DocPath)
	if p.prev[i] < 0 {
		return
	}
	for j, rel := range sk.Files {
		k := p.start[i] + j
		old, ok := w.prev.file(p.prev[i], rel)
		if ok && old.Size == p.size[k] && old.ModTime.UnixNano() == p.mod[k] && w.blobs.has(old.SHA256, old.Size) {
			p.reused[k] = true
		}
	}
}

// reused returns the previous snapshot's entry of file j of skill i,
// which reuse marked, and adds to ms what that snapshot says of it: for
// the document, its frontmatter and headings; the hidden text found in
// it. findings caches the previous skill's, decoded once a file asks.
func (w *writer) reused(p *layout, i, j int, ms *Skill, findings *[]hidden.Finding) File {
	sk, rel := w.skills[i], w.skills[i].Files[j]
	old, _ := w.prev.file(p.prev[i], rel)
	rec := w.prev.record(p.prev[i])
	old.Path = rel
	if w.over(old.Size) { // read, it would give no served digest, nor findings
		old.Served, old.ServedSize = "", 0
	} else if rec.findings != "" {
		if *findings == nil {
			*findings = rec.findingList()
		}
		for _, fd := range *findings {
			if fd.Path == rel {
				ms.Findings = append(ms.Findings, fd)
			}
		}
	}
	if rel == sk.DocPath {
		ms.Frontmatter, ms.Headings = rec.frontmatter, rec.headings
	}
	return old
}

// over reports whether a file of size bytes is over MaxFileSize.
func (w *writer) over(size int64) bool { return w.opts.MaxFileSize > 0 && size > w.opts.MaxFileSize }

// job is one file to read: file j of skill i.
type job struct{ i, j int }

// result is what reading a job's file gives.
type result struct {
	job
	file                  File
	frontmatter, headings string // the document's
	findings              []hidden.Finding
}

// window bounds, per transfer, how far reading may run ahead of the
// file the observer hears of next: the results waiting meanwhile are
// small (no content), and a slow file stalls the others only that far.
const window = 64

// transfer reads, on opts.Transfers goroutines, the files survey did not
// reuse, uploads the content the bucket lacks, and encodes each skill's
// record once its files are done; it tells the observer of every file in
// order.
func (w *writer) transfer(ctx context.Context, p *layout) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failed failure
	jobs, results := make(chan job), make(chan result, w.opts.Transfers)
	ahead := make(chan struct{}, window*w.opts.Transfers)
	go w.dispatch(ctx, p, jobs, ahead)
	var workers sync.WaitGroup
	for range w.opts.Transfers {
		workers.Go(func() {
			sp := &spooler{}
			defer sp.close()
			for jb := range jobs {
				if ctx.Err() != nil {
					continue // failed, or ended: drain
				}
				res, err := w.read(ctx, sp, jb)
				if err != nil {
					failed.set(err, cancel)
					continue
				}
				results <- res
			}
		})
	}
	go func() { workers.Wait(); close(results) }()
	e := emitter{w: w, p: p, pending: map[int]result{}}
	if _, err := e.emit(); err != nil {
		failed.set(err, cancel)
	}
	for res := range results {
		if ctx.Err() != nil {
			continue
		}
		e.pending[p.start[res.i]+res.j] = res
		read, err := e.emit()
		if err != nil {
			failed.set(err, cancel)
		}
		for range read {
			<-ahead // let dispatch run one further
		}
	}
	if err := failed.get(); err != nil {
		return err
	}
	if e.next < len(p.reused) { // ctx ended: the dispatcher stopped
		return context.Cause(ctx)
	}
	return nil
}

// dispatch sends the jobs of the files not reused, in order, at most
// len(ahead) ahead of the observer, until ctx ends.
func (w *writer) dispatch(ctx context.Context, p *layout, jobs chan<- job, ahead chan struct{}) {
	defer close(jobs)
	for i, sk := range w.skills {
		for j := range sk.Files {
			if p.reused[p.start[i]+j] {
				continue
			}
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{i, j}:
			case <-ctx.Done():
				return
			}
		}
	}
}

// read reads one job's file with sp, uploads its content if the bucket
// lacks it, and returns its entry.
func (w *writer) read(ctx context.Context, sp *spooler, jb job) (result, error) {
	sk := w.skills[jb.i]
	rel := sk.Files[jb.j]
	name := sk.Dir + "/" + rel
	if err := sp.spool(w.src, name); err != nil {
		return result{}, fmt.Errorf("reading %s: %w", name, reason(err))
	}
	res := result{job: jb, file: sp.file}
	res.file.Path = rel
	if err := w.inspect(ctx, sp, sk, name, &res); err != nil {
		return result{}, err
	}
	if err := w.store(ctx, sp, res.file); err != nil {
		return result{}, fmt.Errorf("uploading %s: %w", name, err)
	}
	return res, nil
}

// inspect sets what res says of a file besides its size and digests,
// from the bytes sp holds: for the document, its frontmatter and
// headings; for a text file within MaxFileSize, its served digest and
// the hidden text in it. A file spooled to disk is read back into memory
// for it, one such file at a time (bigFile), so that memory stays
// bounded by one large file, not one per transfer.
func (w *writer) inspect(ctx context.Context, sp *spooler, sk SkillFiles, name string, res *result) error {
	rel, f := sk.Files[res.j], &res.file
	servable := !w.over(f.Size)
	if rel != sk.DocPath && !servable {
		return nil
	}
	if sp.temp != nil {
		select {
		case w.bigFile <- struct{}{}:
			defer func() { <-w.bigFile }()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	data, err := sp.bytes() // read back once if spooled to disk
	if err != nil {
		return fmt.Errorf("reading %s back from its temporary copy: %w", name, reason(err))
	}
	if rel == sk.DocPath {
		var doc Skill
		if err := document(&doc, data); err != nil { // from the same bytes as the digests
			return fmt.Errorf("%s cannot be published: %w", name, err)
		}
		res.frontmatter, res.headings = doc.Frontmatter, doc.Headings
	}
	if servable {
		if text, _, ok := store.DecodeText(data); ok {
			if text != string(data) {
				f.Served, f.ServedSize = Sum([]byte(text)), int64(len(text))
			}
			res.findings = store.ScanFile(rel, sk.DocPath, text)
		}
	}
	return nil
}

// store uploads f's content from its spool unless the bucket holds it
// already, whole (a blob of another size is replaced), or another
// transfer is uploading it. With DryRun it uploads nothing.
func (w *writer) store(ctx context.Context, sp *spooler, f File) error {
	if !w.blobs.claim(f.SHA256, f.Size) || w.opts.DryRun {
		return nil
	}
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	return w.dst.WriteObject(ctx, BlobKey(f.SHA256), rd, ObjectAttrs{ContentMD5: sp.sum, ContentType: "application/octet-stream"})
}

// emitter tells the observer of files in order and fills their entries,
// as results come in any order, one skill at a time.
type emitter struct {
	w        *writer
	p        *layout
	next     int // the next file, in order
	i, j     int // its skill, and its index there
	pending  map[int]result
	cur      Skill            // skill i, its entries up to j
	findings []hidden.Finding // skill i's in the previous snapshot, once decoded
}

// emit tells of every file it can, in order: reused ones, and read ones
// whose result came. It returns how many read ones it told of, and the
// first skill done whose record cannot be made.
func (e *emitter) emit() (read int, err error) {
	w := e.w
	for e.next < len(e.p.reused) {
		ms := &e.cur
		sk := w.skills[e.i]
		if e.j == 0 {
			*ms = Skill{Dir: sk.Dir, DocPath: sk.DocPath, Files: ms.Files[:0], Findings: ms.Findings[:0]}
			e.findings = nil
		}
		var f File
		how := FileReused
		if e.p.reused[e.next] {
			f = w.reused(e.p, e.i, e.j, ms, &e.findings)
		} else {
			res, ok := e.pending[e.next]
			if !ok {
				return read, nil
			}
			delete(e.pending, e.next)
			f, how = res.file, w.blobs.outcome(res.file.SHA256)
			ms.Findings = append(ms.Findings, res.findings...)
			if sk.Files[e.j] == sk.DocPath {
				ms.Frontmatter, ms.Headings = res.frontmatter, res.headings
			}
			read++
		}
		ms.Files = append(ms.Files, f)
		e.tell(sk.Dir+"/"+sk.Files[e.j], f.Size, how)
		e.next++
		if e.j++; e.j == len(sk.Files) {
			if err := e.skillDone(ms); err != nil {
				return read, err
			}
		}
	}
	return read, nil
}

// tell counts one file in the report and tells the observer.
func (e *emitter) tell(name string, size int64, how FileOutcome) {
	if e.w.over(size) {
		e.w.obs.OverLimit(name, size)
	}
	r := e.w.r
	switch how {
	case FileUploaded:
		r.Uploaded++
		r.UploadedBytes += size
	case FileStored:
		r.Unchanged++
	case FileReused:
		r.Reused++
	}
	r.Files++
	e.w.obs.File(name, size, how)
}

// skillDone sorts the skill's files and findings (those in its files'
// names found here, each file's first), encodes its record
// (the skills come in the manifest's order), marks the blobs it uses,
// and moves on to the next skill.
func (e *emitter) skillDone(ms *Skill) error {
	slices.SortFunc(ms.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	ms.Findings = slices.DeleteFunc(ms.Findings, func(f hidden.Finding) bool { return f.Line == 0 }) // a reused file's name findings: found again below
	paths := make([]string, len(ms.Files))
	for k, f := range ms.Files {
		paths[k] = f.Path
	}
	ms.Findings = append(hidden.ScanPaths(paths), ms.Findings...)
	slices.SortStableFunc(ms.Findings, func(a, b hidden.Finding) int { return strings.Compare(a.Path, b.Path) })
	if err := e.w.records.add(ms); err != nil {
		return err
	}
	e.w.blobs.use(fileDigests(ms))
	e.w.r.Skills++
	e.i, e.j = e.i+1, 0
	return nil
}

// failure is the first error of goroutines working together.
type failure struct {
	mu  sync.Mutex
	err error
}

// set records err if it is the first, and calls cancel to stop the rest.
func (f *failure) set(err error, cancel context.CancelFunc) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	cancel()
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// forEach calls fn(ctx, i) for every i in [0, n) on up to workers
// goroutines, and returns the first error, after which it starts no
// more calls (ctx given to those under way ends); or ctx's, if it ends
// before every call is made.
func forEach(ctx context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failed failure
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					failed.set(err, cancel)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if err := failed.get(); err != nil {
		return err
	}
	if done.Load() < int64(n) {
		return context.Cause(ctx)
	}
	return nil
}
