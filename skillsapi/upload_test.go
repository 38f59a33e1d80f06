package skillsapi_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

// part is one raw part: its Content-Disposition and its content.
type part struct{ disposition, content string }

func file(name, content string) part {
	return part{`form-data; name="files[]"; filename="` + name + `"`, content}
}

// body is a multipart body by hand, so names go out byte for byte.
func body(parts ...part) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "--B\r\nContent-Disposition: %s\r\nContent-Type: application/octet-stream\r\n\r\n%s\r\n", p.disposition, p.content)
	}
	b.WriteString("--B--\r\n")
	return b.String()
}

func request(contentType, b string) *http.Request {
	r := httptest.NewRequest("POST", "/v1/skills", strings.NewReader(b))
	r.Header.Set("Content-Type", contentType)
	return r
}

const formB = "multipart/form-data; boundary=B"

// TestReadUpload: files keep their full paths and exact bytes, in body
// order; display_name is optional; other text fields are dropped.
func TestReadUpload(t *testing.T) {
	bin := "\x00\xff\r\n\xef\xbb\xbfBOM\r\n--Bx not a boundary"
	for _, c := range []struct {
		name string
		body string
		want skillsapi.Upload
	}{
		{"files and name", body(
			file("my-skill/SKILL.md", "---\r\nname: my-skill\r\n---\r\n"),
			raw(`form-data; name="display_name"`, "My Skill é"),
			file("my-skill/scripts/run.bin", bin),
			file("my-skill/empty", ""),
		), skillsapi.Upload{DisplayName: "My Skill é", Files: []skillsapi.File{
			{"my-skill/SKILL.md", []byte("---\r\nname: my-skill\r\n---\r\n")},
			{"my-skill/scripts/run.bin", []byte(bin)},
			{"my-skill/empty", []byte{}},
		}}},
		{"escaped quote and raw UTF-8", body(file(`my-skill/a b/é\"x.bin`, "x")),
			skillsapi.Upload{Files: []skillsapi.File{{`my-skill/a b/é"x.bin`, []byte("x")}}}},
		{"undici's %22 stays", body(file(`my-skill/é%22x.bin`, "x")),
			skillsapi.Upload{Files: []skillsapi.File{{`my-skill/é%22x.bin`, []byte("x")}}}},
		{"RFC 2231 filename", body(raw(`form-data; name="files[]"; filename*=UTF-8''my-skill%2Fd%C3%A9j%C3%A0.md`, "x")),
			skillsapi.Upload{Files: []skillsapi.File{{"my-skill/déjà.md", []byte("x")}}}},
		{"empty display_name", body(raw(`form-data; name="display_name"`, ""), file("s/SKILL.md", "x")),
			skillsapi.Upload{Files: []skillsapi.File{{"s/SKILL.md", []byte("x")}}}},
		{"unknown text field dropped", body(raw(`form-data; name="future"`, "v"), file("s/SKILL.md", "x")),
			skillsapi.Upload{Files: []skillsapi.File{{"s/SKILL.md", []byte("x")}}}},
		{"bare SKILL.md is the validator's", body(file("SKILL.md", "x")),
			skillsapi.Upload{Files: []skillsapi.File{{"SKILL.md", []byte("x")}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := skillsapi.ReadUpload(request(formB, c.body), skillsapi.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("upload (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadUploadGoWriter: what Go's multipart.Writer sends (as the Go
// SDK does) reads back with directories kept.
func TestReadUploadGoWriter(t *testing.T) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, _ := w.CreateFormFile("files[]", "pdf/scripts/fill.py")
	fw.Write([]byte("print(1)\n"))
	w.WriteField("display_name", "PDF")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := skillsapi.ReadUpload(request(w.FormDataContentType(), b.String()), skillsapi.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := skillsapi.Upload{DisplayName: "PDF", Files: []skillsapi.File{{"pdf/scripts/fill.py", []byte("print(1)\n")}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("upload (-want +got):\n%s", d)
	}
}

// TestReadUploadRefuses: hostile and broken bodies get a 400 or a 413
// whose message says what is wrong, and never shows an absolute path.
func TestReadUploadRefuses(t *testing.T) {
	ok := file("s/SKILL.md", "x")
	tiny := make([]part, 10000)
	for i := range tiny {
		tiny[i] = file(fmt.Sprintf("s/%d", i), "")
	}
	small := skillsapi.Limits{MaxBytes: 1 << 10, MaxParts: 3, MaxPartBytes: 8}
	for _, c := range []struct {
		name        string
		contentType string
		body        string
		lim         skillsapi.Limits
		status      int
		message     string // a part of the message
	}{
		{"not multipart", "application/json", `{}`, skillsapi.Limits{}, 400, "want multipart/form-data"},
		{"no Content-Type", "", body(ok), skillsapi.Limits{}, 400, "want multipart/form-data"},
		{"no boundary", "multipart/form-data", body(ok), skillsapi.Limits{}, 400, "boundary"},
		{"boundary too long", "multipart/form-data; boundary=" + strings.Repeat("b", 71), body(ok), skillsapi.Limits{}, 400, "boundary"},
		{"other boundary", "multipart/form-data; boundary=C", body(ok), skillsapi.Limits{}, 400, "malformed multipart body"},
		{"empty body", formB, "", skillsapi.Limits{}, 400, "malformed multipart body"},
		{"truncated", formB, body(ok)[:40], skillsapi.Limits{}, 400, "malformed multipart body: it ends before its closing boundary"},
		{"truncated after a part", formB, strings.TrimSuffix(body(ok), "--B--\r\n"), skillsapi.Limits{}, 400, "malformed multipart body"},
		{"cut in the next part's header", formB, strings.TrimSuffix(body(ok), "--B--\r\n") + "--B\r\nContent-Disposition: form-da", skillsapi.Limits{}, 400, "it ends before its closing boundary"},
		{"closing boundary with a suffix", formB, strings.TrimSuffix(body(ok), "--B--\r\n") + "--B--x\r\n", skillsapi.Limits{}, 400, "malformed multipart body"},
		{"cut in a file's content", formB, body(ok, file("s/x", strings.Repeat("a", 100)))[:150], skillsapi.Limits{}, 400, "it ends before its closing boundary"},
		{"no parts", formB, "--B--\r\n", skillsapi.Limits{}, 400, "no files[] part"},
		{"only display_name", formB, body(raw(`form-data; name="display_name"`, "x")), skillsapi.Limits{}, 400, "no files[] part"},
		{"no Content-Disposition", formB, "--B\r\n\r\nx\r\n--B--\r\n", skillsapi.Limits{}, 400, "part 1: Content-Disposition"},
		{"nameless part", formB, body(raw(`form-data; filename="s/x"`, "x")), skillsapi.Limits{}, 400, "part 1: Content-Disposition"},
		{"attachment", formB, body(raw(`attachment; name="files[]"; filename="s/x"`, "x")), skillsapi.Limits{}, 400, "part 1: Content-Disposition"},
		{"files[] without filename", formB, body(ok, raw(`form-data; name="files[]"`, "x")), skillsapi.Limits{}, 400, "part 2 (files[]): no filename"},
		{"empty filename", formB, body(file("", "x")), skillsapi.Limits{}, 400, "part 1 (files[]): not-clean-path: empty filename"},
		{"non-UTF-8 filename", formB, body(ok, file("s/\xff\xfe.md", "x")), skillsapi.Limits{}, 400, `part 2 (files[]): not-utf8-name: filename "s/\xff\xfe.md" is not UTF-8`},
		{"control character", formB, body(file("s/a\tb", "x")), skillsapi.Limits{}, 400, "control character"},
		{"absolute", formB, body(file("/home/alice/s/SKILL.md", "x")), skillsapi.Limits{}, 400, "part 1 (files[]): absolute-path: the filename is an absolute path"},
		{"absolute Windows", formB, body(file(`C:\\Users\\a\\s\\SKILL.md`, "x")), skillsapi.Limits{}, 400, "absolute path"},
		{"dot-dot", formB, body(file("s/../../etc/passwd", "x")), skillsapi.Limits{}, 400, `part 1 (files[]): path-escapes: filename "s/../../etc/passwd" has a .. element`},
		{"dot-dot backslash", formB, body(file(`s\\..\\x`, "x")), skillsapi.Limits{}, 400, "has a .. element"},
		{"dot element", formB, body(file("./s/SKILL.md", "x")), skillsapi.Limits{}, 400, "not a clean path"},
		{"double slash", formB, body(file("s//SKILL.md", "x")), skillsapi.Limits{}, 400, "not a clean path"},
		{"trailing slash", formB, body(file("s/", "x")), skillsapi.Limits{}, 400, "not a clean path"},
		{"file in another field", formB, body(raw(`form-data; name="file"; filename="s/SKILL.md"`, "x")), skillsapi.Limits{}, 400, `part 1 ("file"): a file part; files go in files[]`},
		{"duplicate display_name", formB, body(raw(`form-data; name="display_name"`, "a"), ok, raw(`form-data; name="display_name"`, "b")), skillsapi.Limits{}, 400, "part 3: display_name given twice"},
		{"display_name as file", formB, body(raw(`form-data; name="display_name"; filename="n"`, "a"), ok), skillsapi.Limits{}, 400, "a file part"},
		{"display_name two lines", formB, body(raw(`form-data; name="display_name"`, "a\nb"), ok), skillsapi.Limits{}, 400, "display_name: must be one line"},
		{"display_name not UTF-8", formB, body(raw(`form-data; name="display_name"`, "\xff"), ok), skillsapi.Limits{}, 400, "display_name: not UTF-8"},
		{"display_name 256 characters", formB, body(raw(`form-data; name="display_name"`, strings.Repeat("é", 256)), ok), skillsapi.Limits{}, 400, "display_name: longer than 255"},
		{"display_name huge", formB, body(raw(`form-data; name="display_name"`, strings.Repeat("a", 5000)), ok), skillsapi.Limits{}, 400, "display_name: longer than 255"},
		{"10,000 tiny parts", formB, body(tiny...), skillsapi.Limits{MaxBytes: 10 << 20}, 413, "more than 1000 parts"},
		{"parts over a small limit", formB, body(ok, ok, ok, ok), small, 413, "more than 3 parts"},
		{"part too large", formB, body(ok, file("s/big", "123456789")), small, 413, `part 2 (files[]) "s/big": larger than 8 bytes`},
		{"text part counts", formB, body(raw(`form-data; name="future"`, strings.Repeat("a", 2000)), ok), small, 413, "the body is larger than 1024 bytes"},
		{"body too large while streaming", formB, body(ok, ok, file("s/x", strings.Repeat("a", 2000))), skillsapi.Limits{MaxBytes: 1 << 10, MaxPartBytes: 4 << 10}, 413, "the body is larger than 1024 bytes"},
		{"endless preamble", formB, strings.Repeat("x", 4000), small, 413, "the body is larger"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := request(c.contentType, c.body)
			if c.contentType == "" {
				r.Header.Del("Content-Type")
			}
			r.ContentLength = -1 // as a chunked body: counted while read
			_, err := skillsapi.ReadUpload(r, c.lim)
			var e *skillsapi.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != c.status || !strings.Contains(e.Message, c.message) {
				t.Errorf("got %d %q, want %d with %q", e.Status, e.Message, c.status, c.message)
			}
			if strings.Contains(e.Message, "/home/") || strings.Contains(e.Message, `C:\`) {
				t.Errorf("message shows the client's absolute path: %q", e.Message)
			}
		})
	}
}

// TestReadUploadExactLimit: a body of exactly MaxBytes passes; one byte
// more does not.
func TestReadUploadExactLimit(t *testing.T) {
	b := body(file("s/SKILL.md", "x"))
	for _, c := range []struct {
		max    int64
		status int
	}{{int64(len(b)), 0}, {int64(len(b)) - 1, 413}} {
		for _, cl := range []int64{-1, int64(len(b))} {
			r := request(formB, b)
			r.ContentLength = cl
			_, err := skillsapi.ReadUpload(r, skillsapi.Limits{MaxBytes: c.max})
			var e *skillsapi.Error
			switch {
			case c.status == 0 && err != nil:
				t.Errorf("max %d, Content-Length %d: %v", c.max, cl, err)
			case c.status != 0 && (!errors.As(err, &e) || e.Status != c.status):
				t.Errorf("max %d, Content-Length %d: got %v, want %d", c.max, cl, err, c.status)
			}
		}
	}
}

// untouchable fails the test if anything reads it.
type untouchable struct{ t *testing.T }

func (u untouchable) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.EOF
}

// TestReadUploadContentLength: a 2 GB Content-Length is refused before
// one byte of the body is read.
func TestReadUploadContentLength(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/skills", untouchable{t})
	r.Header.Set("Content-Type", formB)
	r.ContentLength = 2 << 30
	_, err := skillsapi.ReadUpload(r, skillsapi.Limits{})
	var e *skillsapi.Error
	if !errors.As(err, &e) || e.Status != 413 || e.Message != "the body is larger than 33554432 bytes" {
		t.Errorf("got %v, want a 413", err)
	}
}

// TestReadUploadReadError: a body that fails mid-read is a 400 whose
// message does not carry the reader's text.
func TestReadUploadReadError(t *testing.T) {
	b := body(file("s/SKILL.md", strings.Repeat("x", 100)))
	r := httptest.NewRequest("POST", "/v1/skills", io.MultiReader(strings.NewReader(b[:60]), failing{}))
	r.Header.Set("Content-Type", formB)
	_, err := skillsapi.ReadUpload(r, skillsapi.Limits{})
	var e *skillsapi.Error
	if !errors.As(err, &e) || e.Status != 400 || strings.Contains(e.Message, "secret") {
		t.Errorf("got %v, want a 400 without the reader's text", err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("read tcp /run/secret: reset") }

// FuzzReadUpload: no body panics the reader, and what it accepts obeys
// the path rules.
func FuzzReadUpload(f *testing.F) {
	f.Add(body(file("s/SKILL.md", "x"), raw(`form-data; name="display_name"`, "n")))
	f.Add(body(file("s/../x", "x")))
	f.Add("--B\r\n\r\n--B--")
	f.Add(strings.TrimSuffix(body(file("s/a", "x")), "--B--\r\n"))
	f.Fuzz(func(t *testing.T, b string) {
		up, err := skillsapi.ReadUpload(request(formB, b), skillsapi.Limits{MaxBytes: 1 << 16, MaxParts: 50, MaxPartBytes: 1 << 12})
		if err != nil {
			var e *skillsapi.Error
			if !errors.As(err, &e) || (e.Status != 400 && e.Status != 413) {
				t.Fatalf("got %v", err)
			}
			return
		}
		for _, f := range up.Files {
			if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains("/"+f.Path+"/", "/../") {
				t.Fatalf("accepted path %q", f.Path)
			}
		}
	})
}

func raw(disposition, content string) part { return part{disposition, content} }
