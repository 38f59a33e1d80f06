package skillsapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The limit of a list: 1 to 1000 items a page, 20 if unset.
const (
	DefaultLimit = 20
	MaxLimit     = 1000
)

// maxPageToken bounds a page token's length; a longer one is refused
// before it is decoded.
const maxPageToken = 2048

// List is what a list request asks: how many items and where to start.
type List struct {
	Limit int
	// After is the key the previous page ended with, "" for the first page.
	After string
}

// ParseList reads a list's query: limit (1 to MaxLimit, DefaultLimit if
// absent) and page (a token from NextPageToken for the same scope; absent
// or empty is the first page). Other parameters are ignored, as older
// SDKs add ?beta=true. A bad value is a 400 naming the parameter.
func ParseList(q url.Values, scope string) (List, error) {
	l := List{Limit: DefaultLimit}
	if v, ok := q["limit"]; ok {
		if len(v) != 1 {
			return List{}, Errorf(http.StatusBadRequest, "limit: give it once")
		}
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > MaxLimit {
			return List{}, Errorf(http.StatusBadRequest, "limit: must be an integer from 1 to %d", MaxLimit)
		}
		l.Limit = n
	}
	if v, ok := q["page"]; ok {
		if len(v) != 1 {
			return List{}, Errorf(http.StatusBadRequest, "page: give it once")
		}
		if v[0] != "" {
			after, err := decodePage(v[0], scope)
			if err != nil {
				return List{}, err
			}
			l.After = after
		}
	}
	return l, nil
}

// NextPageToken is the opaque page token of the page after key after in
// the list named scope (say "skills", or "versions/" and the skill's id):
// "page_", then base64url of a checksum, the scope and the key. A token
// is refused by any other list. The checksum catches corruption, not
// forgery: a token only positions a list, so a forged one shows nothing
// the caller could not list.
func NextPageToken(scope, after string) string {
	payload := append(append([]byte(scope), 0), after...)
	sum := sha256.Sum256(payload)
	return "page_" + base64.RawURLEncoding.EncodeToString(append(sum[:8:8], payload...))
}

func decodePage(token, scope string) (string, error) {
	bad := Errorf(http.StatusBadRequest, "page: not a page token of this list; pass next_page from the previous answer")
	rest, ok := strings.CutPrefix(token, "page_")
	if !ok || len(token) > maxPageToken {
		return "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < 8 {
		return "", bad
	}
	sum := sha256.Sum256(raw[8:])
	if !bytes.Equal(sum[:8], raw[:8]) {
		return "", bad
	}
	s, after, ok := bytes.Cut(raw[8:], []byte{0})
	if !ok || string(s) != scope {
		return "", bad
	}
	return string(after), nil
}
