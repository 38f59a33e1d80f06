package skillsapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/skillcheck"
)

// Field names of an upload: the files and the skill's display name.
const (
	FieldFiles       = "files[]"
	FieldDisplayName = "display_name"
)

// MaxDisplayName bounds display_name, in characters.
const MaxDisplayName = 255

// Limits bound an upload. A zero field takes its default.
type Limits struct {
	// MaxBytes bounds the whole body, part headers included. Default
	// 32 MiB, the limit Anthropic documents for its standard endpoints.
	MaxBytes int64
	// MaxParts bounds the number of parts. Default 1000.
	MaxParts int
	// MaxPartBytes bounds one part's content. Default 8 MiB.
	MaxPartBytes int64
}

// The defaults of Limits.
const (
	DefaultMaxBytes     = 32 << 20
	DefaultMaxParts     = 1000
	DefaultMaxPartBytes = 8 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxParts <= 0 {
		l.MaxParts = DefaultMaxParts
	}
	if l.MaxPartBytes <= 0 {
		l.MaxPartBytes = DefaultMaxPartBytes
	}
	return l
}

// File is one uploaded file: its path as the client named it and its
// bytes exactly as sent.
type File struct {
	Path string
	Data []byte
}

// Upload is what a create or create-version body carries. DisplayName
// is "" when the client sent none (or sent it empty).
type Upload struct {
	Files       []File
	DisplayName string
}

// ReadUpload reads a multipart/form-data upload: every files[] part as a
// File, in body order, and an optional display_name text part. Parts of
// other names without a filename are read and dropped (SDKs may add
// fields); a file part of another name is refused.
//
// It streams the body part by part (no ReadForm: its FileName() keeps
// only the base name and it caps parts at 1000 on its own). A file's
// path is the filename parameter of the raw Content-Disposition,
// directories kept, not cleaned; it must be valid UTF-8, non-empty,
// relative, slash-separated, without ".." or "." or empty elements.
// Whether the paths make one skill folder is the validator's business,
// not this one's. Parts are read raw: no Content-Transfer-Encoding is
// undone, so the bytes are the client's.
//
// Refusals are *Error: 413 for a body over lim.MaxBytes (refused from
// its Content-Length before any read, else when the count passes it),
// more than lim.MaxParts parts, or a part over lim.MaxPartBytes; 400 for
// a body that is not multipart/form-data with a boundary, a malformed or
// truncated body, a bad file name (the message names the part and the
// skillcheck rule the name breaks: "part 2 (files[]): path-escapes:
// …"), a display_name given twice, not UTF-8, multi-line or over
// MaxDisplayName characters, and a body with no file. The body is not
// closed and may be left part read.
func ReadUpload(r *http.Request, lim Limits) (Upload, error) {
	lim = lim.withDefaults()
	if r.ContentLength > lim.MaxBytes {
		return Upload{}, tooLarge(lim.MaxBytes)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return Upload{}, Errorf(http.StatusBadRequest, "Content-Type: want multipart/form-data with a boundary")
	}
	boundary := params["boundary"]
	if boundary == "" || len(boundary) > 70 {
		return Upload{}, Errorf(http.StatusBadRequest, "Content-Type: multipart/form-data needs a boundary of 1 to 70 characters")
	}
	body := &countedBody{r: r.Body, left: lim.MaxBytes + 1, final: []byte("\n--" + boundary + "--"), tail: []byte("\n")}
	fail := func(err error) error {
		if body.over {
			return tooLarge(lim.MaxBytes)
		}
		return Errorf(http.StatusBadRequest, "malformed multipart body: %s", multipartProblem(err))
	}
	mr := multipart.NewReader(body, boundary)
	var up Upload
	named := false
	for n := 1; ; n++ {
		p, err := mr.NextRawPart()
		if err == io.EOF && body.ended {
			break
		}
		if err == io.EOF {
			// The reader also says io.EOF for a body cut in a part's
			// header: only the closing boundary ends a body.
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return Upload{}, fail(err)
		}
		if n > lim.MaxParts {
			return Upload{}, Errorf(http.StatusRequestEntityTooLarge, "more than %d parts in the body", lim.MaxParts)
		}
		disp, dp, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		name := dp["name"]
		if err != nil || disp != "form-data" || name == "" {
			return Upload{}, Errorf(http.StatusBadRequest, "part %d: Content-Disposition: want form-data with a name", n)
		}
		filename, isFile := dp["filename"]
		switch {
		case name == FieldFiles:
			if !isFile {
				return Upload{}, Errorf(http.StatusBadRequest, "part %d (files[]): no filename; name each file by its path, as my-skill/SKILL.md", n)
			}
			if problem := checkPath(filename); problem != "" {
				return Upload{}, Errorf(http.StatusBadRequest, "part %d (files[]): %s", n, problem)
			}
			data, err := readall.Read(p, -1, lim.MaxPartBytes)
			if errors.Is(err, readall.ErrTooLarge) {
				return Upload{}, Errorf(http.StatusRequestEntityTooLarge, "part %d (files[]) %s: larger than %d bytes", n, quote(filename), lim.MaxPartBytes)
			}
			if err != nil {
				return Upload{}, fail(err)
			}
			up.Files = append(up.Files, File{Path: filename, Data: data})
		case isFile:
			return Upload{}, Errorf(http.StatusBadRequest, "part %d (%s): a file part; files go in files[]", n, quote(name))
		case name == FieldDisplayName:
			if named {
				return Upload{}, Errorf(http.StatusBadRequest, "part %d: display_name given twice", n)
			}
			named = true
			data, err := readall.Read(p, -1, MaxDisplayName*utf8.UTFMax)
			if errors.Is(err, readall.ErrTooLarge) {
				return Upload{}, Errorf(http.StatusBadRequest, "display_name: longer than %d characters", MaxDisplayName)
			}
			if err != nil {
				return Upload{}, fail(err)
			}
			if problem := checkDisplayName(string(data)); problem != "" {
				return Upload{}, Errorf(http.StatusBadRequest, "display_name: %s", problem)
			}
			up.DisplayName = string(data)
		default:
			if _, err := io.Copy(io.Discard, p); err != nil {
				return Upload{}, fail(err)
			}
		}
	}
	if body.over {
		return Upload{}, tooLarge(lim.MaxBytes)
	}
	if len(up.Files) == 0 {
		return Upload{}, Errorf(http.StatusBadRequest, "no files[] part: send the skill's files, each named by its path, as my-skill/SKILL.md")
	}
	return up, nil
}

func tooLarge(max int64) *Error {
	return Errorf(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", max)
}

// multipartProblem names what went wrong in words of the body, never
// the reader's own error text.
func multipartProblem(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "it ends before its closing boundary"
	}
	return "it does not follow its boundary"
}

// countedBody reads at most left bytes; reading past them sets over.
// left starts one past the limit, so a body of exactly the limit passes.
// It also watches for the closing boundary at a line's start (final),
// and sets ended once it went by.
type countedBody struct {
	r     io.Reader
	left  int64
	over  bool
	final []byte
	tail  []byte // the last len(final)-1 bytes read, at most
	ended bool
}

func (b *countedBody) watch(p []byte) {
	if b.ended || len(p) == 0 {
		return
	}
	window := append(b.tail, p...)
	if bytes.Contains(window, b.final) {
		b.ended = true
		return
	}
	keep := min(len(window), len(b.final)-1)
	b.tail = append(b.tail[:0], window[len(window)-keep:]...)
}

var errBodyTooLarge = errors.New("body too large")

func (b *countedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.over = true
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.watch(p[:n])
	b.left -= int64(n)
	if b.left <= 0 {
		b.over = true
		return n, errBodyTooLarge
	}
	return n, err
}

// checkPath says what is wrong with a file's path, or "": the rule it
// breaks, as skillcheck names it, then why.
func checkPath(name string) string {
	switch {
	case name == "":
		return skillcheck.RuleNotClean + ": empty filename; name each file by its path, as my-skill/SKILL.md"
	case !utf8.ValidString(name):
		return fmt.Sprintf("%s: filename %s is not UTF-8", skillcheck.RuleNotUTF8Name, quote(name))
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Sprintf("%s: filename %s has a control character", skillcheck.RuleControlChar, quote(name))
	case name[0] == '/' || name[0] == '\\' || len(name) >= 3 && name[1] == ':' && (name[2] == '/' || name[2] == '\\'):
		// Not echoed: it is a path on the client's machine.
		return skillcheck.RuleAbsolute + ": the filename is an absolute path; name each file by its path in the skill, as my-skill/SKILL.md"
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return fmt.Sprintf("%s: filename %s has a .. element", skillcheck.RulePathEscapes, quote(name))
		}
	}
	if !fs.ValidPath(name) {
		return fmt.Sprintf("%s: filename %s is not a clean path: no empty or . elements, no trailing slash", skillcheck.RuleNotClean, quote(name))
	}
	return ""
}

// checkDisplayName says what is wrong with a display name, or "".
func checkDisplayName(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "not UTF-8"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "must be one line without control characters"
	case utf8.RuneCountInString(s) > MaxDisplayName:
		return fmt.Sprintf("longer than %d characters", MaxDisplayName)
	}
	return ""
}

// quote is a client-sent name as messages show it: quoted, escaped, cut
// to 200 bytes.
func quote(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%q…", s[:200])
	}
	return fmt.Sprintf("%q", s)
}
