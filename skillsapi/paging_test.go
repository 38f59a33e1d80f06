package skillsapi_test

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/skillsapi"
)

// TestParseList: limit's range and default, and page tokens that come
// back give the key they were made from.
func TestParseList(t *testing.T) {
	tok := skillsapi.NextPageToken("skills", "skill_07")
	for _, c := range []struct {
		query string
		want  skillsapi.List
	}{
		{"", skillsapi.List{Limit: 20}},
		{"limit=1", skillsapi.List{Limit: 1}},
		{"limit=1000", skillsapi.List{Limit: 1000}},
		{"limit=5&source=custom&beta=true", skillsapi.List{Limit: 5}},
		{"page=", skillsapi.List{Limit: 20}},
		{"limit=7&page=" + tok, skillsapi.List{Limit: 7, After: "skill_07"}},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := skillsapi.ParseList(q, "skills")
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.query, got, err, c.want)
		}
	}
}

// TestParseListRefuses: a bad limit or page is a 400 naming the
// parameter, never a panic.
func TestParseListRefuses(t *testing.T) {
	tok := skillsapi.NextPageToken("skills", "skill_07")
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, "page_"))
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 1
	forged := "page_" + base64.RawURLEncoding.EncodeToString(flipped)
	for _, c := range []struct{ query, param string }{
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=-1", "limit"},
		{"limit=abc", "limit"},
		{"limit=", "limit"},
		{"limit=1.5", "limit"},
		{"limit=99999999999999999999999", "limit"},
		{"limit=1&limit=2", "limit"},
		{"page=garbage", "page"},
		{"page=page_", "page"},
		{"page=page_%21%21%21", "page"},
		{"page=page_AAAA", "page"},
		{"page=" + url.QueryEscape(forged), "page"},
		{"page=" + tok[:len(tok)-3], "page"},
		{"page=" + skillsapi.NextPageToken("versions/skill_01", "skver_1"), "page"},
		{"page=page_" + strings.Repeat("A", 4000), "page"},
		{"page=" + tok + "&page=" + tok, "page"},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = skillsapi.ParseList(q, "skills")
		e, ok := err.(*skillsapi.Error)
		if !ok || e.Status != 400 || !strings.HasPrefix(e.Message, c.param+":") {
			t.Errorf("%.60q: got %v, want a 400 naming %s", c.query, err, c.param)
		}
	}
}

// TestPageTokenKeys: any key, empty or odd, survives its token, which
// stays URL-safe.
func TestPageTokenKeys(t *testing.T) {
	for _, key := range []string{"", "a", "skill_01JAbc", "with\x00nul", "é/..?&=", strings.Repeat("z", 500)} {
		tok := skillsapi.NextPageToken("versions/skill_01", key)
		if url.QueryEscape(tok) != tok {
			t.Errorf("%q: token %q needs escaping", key, tok)
		}
		got, err := skillsapi.ParseList(url.Values{"page": {tok}}, "versions/skill_01")
		if err != nil || got.After != key {
			t.Errorf("%q: got %q, %v", key, got.After, err)
		}
	}
}
