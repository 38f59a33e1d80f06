package ui

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"mime"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/connect"
	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// maxZipBytes bounds the content of a skill's zip.
const maxZipBytes = 256 << 20

// digestWorkers is how many files a skill page reads at once for digests
// it does not know yet; maxDigestReads is how many it reads at most (a
// skill may hold 10,000 files): the other files' digests are shown when
// their source knows them without a read.
const (
	digestWorkers  = 8
	maxDigestReads = 1000
)

// skillData is the skill page's.
type skillData struct {
	Skill       *store.Skill
	URI         string
	Fields      []field
	Body        template.HTML
	DocErr      string
	Files       template.HTML // the files table's rows (filesHTML)
	FileCount   int
	TotalSize   int64
	FilesErr    string
	Shadows     []store.SourceRef
	Scanned     bool
	Scan        []store.Finding
	ScanErr     string
	Provenance  *store.Provenance
	Frontmatter string
	Get         string    // the command that prints the skill
	Owner       string    // metadata.owner, else metadata.author
	Version     string    // metadata.version
	Updated     time.Time // SKILL.md's modification time; zero when unknown
	// Versions are the skill's versions, newest first, when its source
	// keeps them (Versioned); MoreVersions counts those not listed.
	Versioned    bool
	Versions     []versionRow
	MoreVersions int
	VersionsErr  string
}

// field is one frontmatter field as the page lists it.
type field struct{ Key, Value string }

// fileRow is one line of the files tree: a folder or a file.
type fileRow struct {
	Path, Name string
	Depth      int
	Dir        bool
	Size       int64
	SHA256     string
	Err        string
	Image      bool
}

// skill serves a skill's page.
func (u *UI) skill(w http.ResponseWriter, r *http.Request) {
	ctx, v, sk, done := u.skillOf(w, r)
	defer done()
	if sk == nil {
		return
	}
	d := skillData{Skill: sk, URI: tools.SkillURI(sk.Name), Provenance: sk.Provenance, Fields: fieldsOf(sk.Frontmatter), Frontmatter: sk.Raw}
	d.Get = "skillstore get " + connect.ShellQuote(sk.Name)
	d.Owner, d.Version, d.Updated = sk.Metadata["owner"], sk.Metadata["version"], sk.DocModTime()
	if d.Owner == "" {
		d.Owner = sk.Metadata["author"]
	}
	d.Shadows = v.Shadows(sk)
	pin := &store.ReadOptions{Skill: sk} // every part of the page from sk's snapshot
	files, err := v.Files(ctx, sk.Name, pin)
	if err != nil {
		d.FilesErr = describe(err)
	}
	base := newLinkBase(sk.Name, ".", files)
	if doc, err := v.Document(ctx, sk.Name, pin); err != nil {
		d.DocErr = describe(err)
	} else {
		_, body, err := store.SplitDocument(doc.Text)
		if err != nil {
			body = doc.Text
		}
		if d.Body, err = u.markdownOf(ctx, sk, sk.DocPath, body, base); err != nil {
			u.failed(w, r, err)
			return
		}
	}
	u.versionsOf(ctx, r, sk, &d)
	rows, total := u.tree(ctx, v, sk, files)
	d.Files, d.FileCount, d.TotalSize = filesHTML(sk.Name, rows), len(files), total
	if r.URL.Query().Get("scan") != "" {
		d.Scanned = true
		d.Scan, err = v.Scan(ctx, sk)
		if err != nil {
			d.ScanErr = describe(err)
		}
	}
	u.render(w, r, http.StatusOK, "skill", sk.Name, "skills", d)
}

// skillOf starts the answer to a request about the skill its path names:
// its context, bounded (done releases it), the caller's view, and the
// skill, nil when it is not there for the caller (the failure is then
// answered). The read is audited.
func (u *UI) skillOf(w http.ResponseWriter, r *http.Request) (ctx context.Context, v *store.View, sk *store.Skill, done func()) {
	ctx, done = u.bounded(r)
	name := r.PathValue("name")
	v = u.opts.View(r)
	u.audit(r, name, "")
	sk, err := v.Skill(ctx, name)
	if err != nil {
		u.failed(w, r, err)
		return ctx, v, nil, done
	}
	return ctx, v, sk, done
}

// fieldsOf lists the frontmatter fields the specification names.
func fieldsOf(fm store.Frontmatter) []field {
	out := []field{{"name", fm.Name}, {"description", fm.Description}}
	add := func(k, v string) {
		if v != "" {
			out = append(out, field{k, v})
		}
	}
	add("license", fm.License)
	add("compatibility", fm.Compatibility)
	add("allowed-tools", strings.Join(fm.AllowedTools, " "))
	keys := make([]string, 0, len(fm.Metadata))
	for k := range fm.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, field{"metadata." + k, fm.Metadata[k]})
	}
	return out
}

// newLinkBase is what a document in folder dir of a skill with files
// resolves its links against.
func newLinkBase(skill, dir string, files []store.FileInfo) *linkBase {
	b := &linkBase{skill: skill, dir: dir, files: make(map[string]bool, len(files))}
	h := fnv.New64a()
	for _, f := range files {
		b.files[f.Path] = true
		h.Write([]byte(f.Path))
		h.Write([]byte{0})
	}
	b.fingerprint = h.Sum64()
	return b
}

// tree lists files as rows of a tree, each file with its digest (read,
// digestWorkers at a time, for the first maxDigestReads of those its
// source does not know; a file that cannot be served says why).
func (u *UI) tree(ctx context.Context, v *store.View, sk *store.Skill, files []store.FileInfo) ([]fileRow, int64) {
	rows := make([]fileRow, 0, len(files)+len(files)/4)
	var prev []string
	var total int64
	fileRows := make([]int, 0, len(files))
	for _, f := range files {
		dirs := strings.Split(f.Path, "/")
		base := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		common := 0
		for common < len(dirs) && common < len(prev) && dirs[common] == prev[common] {
			common++
		}
		for i := common; i < len(dirs); i++ {
			rows = append(rows, fileRow{Path: strings.Join(dirs[:i+1], "/"), Name: dirs[i], Depth: i, Dir: true})
		}
		prev = dirs
		fileRows = append(fileRows, len(rows))
		rows = append(rows, fileRow{Path: f.Path, Name: base, Depth: len(dirs), Size: f.Size, Image: imageType(f.Path) != "", SHA256: f.SHA256})
		total += f.Size
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(digestWorkers, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				row := &rows[fileRows[i]]
				row.SHA256, row.Err = u.digest(ctx, v, sk, files[i])
			}
		}()
	}
	reads := 0
	for i, f := range files {
		if f.SHA256 == "" {
			if reads++; reads > maxDigestReads {
				continue // not read: shown without a digest
			}
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return rows, total
}

// digest returns the SHA-256 of file f of sk as stored, or why it cannot
// be served. A panic in the backend's read fails this file alone: the
// store hands a read's panic to its caller, and this one is not the
// request's goroutine.
func (u *UI) digest(ctx context.Context, v *store.View, sk *store.Skill, f store.FileInfo) (sum, failure string) {
	defer func() {
		if v := recover(); v != nil {
			u.opts.Logger.Error("panic reading a file for its digest", "skill", sk.Name, "path", f.Path, "panic", fmt.Sprint(v))
			sum, failure = "", "it cannot be read; see the server log"
		}
	}()
	d, err := v.Digest(ctx, sk, f)
	if err != nil {
		return "", describe(err)
	}
	return d.SHA256, ""
}

// filesHTML writes the files table's rows. It is written here rather
// than in the page's template, where 500 rows took 80% of the page's
// time (reflection, for each value, in html/template's escapers); every
// value is escaped as the template would escape it in its context, and a
// name shown through hidden.Visible, so that none displays as another.
func filesHTML(name string, rows []fileRow) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 300)
	esc := template.HTMLEscapeString
	for _, r := range rows {
		if r.Dir {
			b.WriteString(`<tr class="dir" id="dir-`)
			b.WriteString(esc(hidden.Visible(r.Path)))
			b.WriteString(`"><td class="d`)
			b.WriteString(strconv.Itoa(r.Depth))
			b.WriteString(`">`)
			b.WriteString(esc(hidden.Visible(r.Name)))
			b.WriteString("/</td><td></td><td></td><td></td></tr>\n")
			continue
		}
		if r.Err != "" { // not served: no page, no download
			b.WriteString(`<tr><td class="d`)
			b.WriteString(strconv.Itoa(r.Depth))
			b.WriteString(`">`)
			b.WriteString(esc(hidden.Visible(r.Name)))
			b.WriteString(`</td><td class="num">`)
			b.WriteString(humanSize(r.Size))
			b.WriteString(`</td><td colspan="2"><span class="muted">`)
			b.WriteString(esc(r.Err))
			b.WriteString("</span></td></tr>\n")
			continue
		}
		b.WriteString(`<tr><td class="d`)
		b.WriteString(strconv.Itoa(r.Depth))
		b.WriteString(`"><a href="`)
		b.WriteString(esc(fileURL(name, r.Path)))
		b.WriteString(`">`)
		b.WriteString(esc(hidden.Visible(r.Name)))
		b.WriteString(`</a></td><td class="num">`)
		b.WriteString(humanSize(r.Size))
		b.WriteString(`</td><td>`)
		if r.SHA256 == "" {
			b.WriteString(`<span class="muted">not computed: the page reads at most ` + strconv.Itoa(maxDigestReads) + ` files</span>`)
		} else {
			b.WriteString(`<code class="digest">`)
			b.WriteString(esc(r.SHA256))
			b.WriteString(`</code>`)
		}
		b.WriteString(`</td><td><a href="`)
		b.WriteString(esc(rawURL(name, r.Path)))
		b.WriteString(`" download="`)
		b.WriteString(esc(hidden.Visible(r.Name))) // saved under a name that shows what it is
		b.WriteString("\">download</a></td></tr>\n")
	}
	return template.HTML(b.String()) // every value above is escaped
}

// fileData is a file page's.
type fileData struct {
	Skill    *store.Skill
	Path     string
	URI      string
	File     store.File
	Markdown template.HTML
	Source   bool // show a Markdown file's text, not its rendering
	IsMD     bool
	Image    bool
	Token    bool // images are loaded by the page's script, with the token
	Crumbs   []crumb
}

type crumb struct{ Name, URL string }

// file serves the page of one file of a skill: a text file's text (a
// Markdown file rendered, or its source), an image shown, any other
// binary file described; each with its download.
func (u *UI) file(w http.ResponseWriter, r *http.Request) {
	ctx, v, f, ok, done := u.fileOf(w, r)
	defer done()
	if !ok {
		return
	}
	name := f.Skill.Name
	d := fileData{Skill: f.Skill, Path: f.Path, URI: tools.FileURI(name, f.Path), File: f, Image: imageType(f.Path) != "", Token: u.opts.TokenRequired}
	if f.Path == f.Skill.DocPath {
		d.URI = tools.SkillURI(name)
	}
	d.Crumbs = crumbsOf(name, f.Path)
	ext := strings.ToLower(path.Ext(f.Path))
	d.IsMD = !f.Binary && (ext == ".md" || ext == ".markdown")
	d.Source = r.URL.Query().Get("source") != ""
	if d.IsMD && !d.Source {
		files, err := v.Files(ctx, f.Skill.Name, &store.ReadOptions{Skill: f.Skill})
		if err == nil {
			text := f.Text
			if f.Path == f.Skill.DocPath {
				if _, body, err := store.SplitDocument(text); err == nil {
					text = body
				}
			}
			if d.Markdown, err = u.markdownOf(ctx, f.Skill, f.Path, text, newLinkBase(name, path.Dir(f.Path), files)); err != nil {
				u.failed(w, r, err)
				return
			}
		} else {
			d.Source = true
		}
	}
	if f.Binary {
		d.File.Data = "" // described, never shown
	}
	u.render(w, r, http.StatusOK, "file", hidden.Visible(f.Path)+" · "+name, "skills", d)
}

// fileOf starts the answer to a request about the file its path names,
// as skillOf does for a skill: the file, read through the caller's view,
// or false when it cannot be (the failure is then answered).
func (u *UI) fileOf(w http.ResponseWriter, r *http.Request) (ctx context.Context, v *store.View, f store.File, ok bool, done func()) {
	ctx, done = u.bounded(r)
	name, p := r.PathValue("name"), r.PathValue("path")
	v = u.opts.View(r)
	u.audit(r, name, p)
	f, err := v.ReadFile(ctx, name, p, nil)
	if err != nil {
		u.failed(w, r, err)
		return ctx, v, f, false, done
	}
	return ctx, v, f, true, done
}

// crumbsOf lists the folders of p, for a path of links.
func crumbsOf(name, p string) []crumb {
	parts := strings.Split(p, "/")
	out := make([]crumb, 0, len(parts))
	for i, part := range parts[:len(parts)-1] {
		out = append(out, crumb{part, skillURL(name) + "#dir-" + hidden.Visible(strings.Join(parts[:i+1], "/"))})
	}
	return out
}

// raw serves a file's bytes exactly as stored as an attachment, or, with
// ?inline=1, an image inline (what a page's <img> asks for). Text keeps
// its byte order mark, line endings and encoding, which its media type
// names. Nothing served here runs: its policy is filePolicy.
func (u *UI) raw(w http.ResponseWriter, r *http.Request) {
	_, _, f, ok, done := u.fileOf(w, r)
	defer done()
	if !ok {
		return
	}
	h := w.Header()
	secure(h, filePolicy)
	h.Set("Cache-Control", "private, no-cache")
	if t := imageType(f.Path); t != "" && r.URL.Query().Get("inline") != "" {
		h.Set("Content-Type", t)
		h.Set("Content-Disposition", "inline")
	} else {
		h.Set("Content-Type", "application/octet-stream")
		if !f.Binary {
			h.Set("Content-Type", "text/plain; charset="+f.Encoding)
		}
		h.Set("Content-Disposition", attachment(path.Base(f.Path)))
	}
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(f.Raw))
}

// ZipTimeout bounds a zip's download: waiting for its build, then
// streaming it as long as the client reads, up to this.
const ZipTimeout = 10 * time.Minute

// zipRetryAfter is the Retry-After, in seconds, of a zip refused while
// too many archives are being built, or still being built when its
// request ended.
const zipRetryAfter = "5"

// zip serves the skill as a zip of its folder: built once per version of
// its files and kept (Options.Archives: in memory, or in a temporary
// file), its build shared by concurrent downloads and bounded with every
// other archive's, then served with an ETag and ranges. A skill whose
// files add up to over maxZipBytes gets 413; a request that finds too
// many archives being built, or whose wait ends first, gets 503 and
// Retry-After.
func (u *UI) zip(w http.ResponseWriter, r *http.Request) {
	_, v, sk, done := u.skillOf(w, r)
	done() // the lookup's bound; the download has its own
	if sk == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), ZipTimeout)
	defer cancel()
	files, err := v.Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
	if err != nil {
		u.failed(w, r, err)
		return
	}
	var size int64
	for _, f := range files {
		size += f.Size
	}
	if size > maxZipBytes {
		u.status(w, r, http.StatusRequestEntityTooLarge, "Too large", fmt.Sprintf("This skill's files add up to %s, over the %s a zip may hold; download its files one by one.", humanSize(size), humanSize(maxZipBytes)))
		return
	}
	folder := path.Base(sk.Folder()) // a plugin's skill unpacks as the folder it is installed as, named as its frontmatter says
	if folder == "." {
		folder = sk.Name // a source that is one skill's folder
	}
	key := artifact.KeyOf(sk, files, "pages:"+folder)
	a, err := u.opts.Archives.Get(ctx, key, r.Method == http.MethodGet, func(ctx context.Context, w io.Writer) (string, error) {
		return "zip", v.WriteZip(ctx, w, sk, files, store.ZipOptions{Prefix: folder + "/", MaxBytes: maxZipBytes, Skipped: func(p string) {
			u.opts.Logger.Warn("a file over --max-file-size is left out of the skill's zip", "skill", sk.Name, "path", p)
		}})
	})
	switch {
	case errors.Is(err, artifact.ErrBusy), err != nil && ctx.Err() != nil && r.Context().Err() == nil:
		w.Header().Set("Retry-After", zipRetryAfter)
		u.status(w, r, http.StatusServiceUnavailable, "Busy", "This skill's zip is not ready: the server is building many archives. Try again in a few seconds.")
		return
	case err != nil:
		u.failed(w, r, err)
		return
	}
	defer a.Release()
	h := w.Header()
	secure(h, filePolicy)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", attachment(folder+".zip"))
	h.Set("ETag", a.ETag())
	if !a.HasBody() {
		r.Header.Del("Range") // HEAD: the length alone
	}
	http.ServeContent(w, r, "", time.Time{}, a.Body())
}

// attachment is a Content-Disposition that downloads a file called name.
func attachment(name string) string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}

// imageType is the media type of an image a page may show, by its name's
// extension; "" for any other file.
func imageType(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".svg":
		return "image/svg+xml"
	}
	return ""
}

// describe is an error in the words the tools use: never a host or a path.
func describe(err error) string {
	msg, _ := tools.Describe(err)
	return msg
}

// audit tells Options.Audit of a read of skill content.
func (u *UI) audit(r *http.Request, skill, file string) {
	if u.opts.Audit != nil {
		u.opts.Audit(r, skill, file)
	}
}
