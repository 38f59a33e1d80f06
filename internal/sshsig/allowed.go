package sshsig

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// MaxAllowedSignersBytes bounds an allowed-signers file.
const MaxAllowedSignersBytes = 1 << 20

// AllowedSigners is the set of keys a verifier trusts, read from an
// allowed-signers file: one key a line,
//
//	principals [options] keytype base64-key [comment]
//
// where principals is a comma-separated list (quoted if it holds spaces)
// and options are namespaces="a,b" (the purposes the key may sign for;
// patterns with * and ? allowed, ! negates), valid-after="YYYYMMDD[HHMM[SS]][Z]"
// and valid-before="…" (local time unless Z). Blank lines and lines
// beginning with # are skipped. cert-authority lines are refused (no
// certificates are accepted).
type AllowedSigners struct {
	entries []entry
}

type entry struct {
	line        int
	principals  string
	key         ssh.PublicKey
	raw         string // key.Marshal()
	namespaces  string // the option's value; "" allows every namespace
	after       time.Time
	before      time.Time
	fingerprint string
}

// Signer is the trusted key that made a verified signature.
type Signer struct {
	// Principal is the principals field of the allowed-signers line that
	// trusts the key, as written ("alice@example.com" or "a@x,b@y").
	Principal string
	// Fingerprint is the key's SHA-256 fingerprint, as `ssh-keygen -l` prints it.
	Fingerprint string
	// KeyType is the key's SSH type ("ssh-ed25519"…).
	KeyType string
}

// LineError is the error of an allowed-signers line that cannot be used.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ParseAllowedSigners reads an allowed-signers file. A line that cannot be
// used fails the whole file with a *LineError naming it (a verifier must
// not trust a partial list); so does a file over MaxAllowedSignersBytes.
// A file that lists no key (empty, or only comments) is a list that
// trusts nothing (Len 0): emptying the file, or commenting out its only
// key, revokes every key, as it does for ssh-keygen; callers should say
// so loudly.
func ParseAllowedSigners(data []byte) (*AllowedSigners, error) {
	if len(data) > MaxAllowedSignersBytes {
		return nil, fmt.Errorf("the allowed-signers file is %d bytes; the limit is %d", len(data), MaxAllowedSignersBytes)
	}
	a := &AllowedSigners{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, &LineError{Line: n + 1, Err: err}
		}
		e.line = n + 1
		a.entries = append(a.entries, e)
	}
	return a, nil
}

func parseLine(line []byte) (entry, error) {
	principals, rest, err := firstField(string(line))
	if err != nil {
		return entry{}, err
	}
	if strings.TrimSpace(rest) == "" {
		return entry{}, errors.New("a principal is followed by no key; write: principals [options] keytype base64-key")
	}
	key, _, options, _, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return entry{}, fmt.Errorf("no readable public key after the principals (%s)", strings.TrimPrefix(err.Error(), "ssh: "))
	}
	if err := CheckKey(key); err != nil {
		return entry{}, err
	}
	e := entry{principals: principals, key: key, raw: string(key.Marshal()), fingerprint: Fingerprint(key)}
	for _, opt := range options {
		name, value, _ := strings.Cut(opt, "=")
		value = strings.Trim(value, `"`)
		switch strings.ToLower(name) {
		case "namespaces":
			e.namespaces = value
		case "valid-after":
			e.after, err = parseTime(value)
		case "valid-before":
			e.before, err = parseTime(value)
		case "cert-authority":
			err = errors.New("cert-authority lines are not supported; list the signer's own key")
		default:
			err = fmt.Errorf("unknown option %q", clip(name))
		}
		if err != nil {
			return entry{}, err
		}
	}
	return e, nil
}

// firstField splits off the principals field, which may be quoted.
func firstField(s string) (field, rest string, err error) {
	if s[0] == '"' {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", errors.New("the quoted principals are not closed")
		}
		return s[1 : end+1], s[end+2:], nil
	}
	field, rest, _ = strings.Cut(s, " ")
	if i := strings.IndexByte(field, '\t'); i >= 0 {
		field, rest = field[:i], field[i+1:]+" "+rest
	}
	return field, rest, nil
}

// parseTime reads a valid-after/valid-before time: YYYYMMDD, YYYYMMDDHHMM
// or YYYYMMDDHHMMSS, in UTC with a Z suffix and local time without.
func parseTime(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	if layout, ok := layouts[len(v)]; ok {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q (write YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, with Z for UTC)", clip(v))
}

// With returns a list that trusts what a trusts (a may be nil) and key,
// as principal, for every namespace at every time: a publisher's own key
// beside the list it was given. a is left as it is.
func (a *AllowedSigners) With(principal string, key ssh.PublicKey) *AllowedSigners {
	out := &AllowedSigners{}
	if a != nil {
		out.entries = append(out.entries, a.entries...)
	}
	out.entries = append(out.entries, entry{principals: principal, key: key, raw: string(key.Marshal()), fingerprint: Fingerprint(key)})
	return out
}

// Len is the number of keys listed.
func (a *AllowedSigners) Len() int { return len(a.entries) }

// Verify checks that armored is a signature of message for namespace, made
// at time at by a key the file trusts for that namespace then, and
// returns that key. Errors wrap ErrMalformed, ErrNamespace,
// ErrUnknownSigner (naming the key's fingerprint) or ErrBadSignature.
func (a *AllowedSigners) Verify(message, armored []byte, namespace string, at time.Time) (Signer, error) {
	return a.verify(message, nil, armored, namespace, at)
}

// VerifySHA256 is Verify for a message whose SHA-256 the caller already
// computed (sum): a signature made over SHA-256 (SignSHA256) is then
// checked without a second pass over the message.
func (a *AllowedSigners) VerifySHA256(message []byte, sum [sha256.Size]byte, armored []byte, namespace string, at time.Time) (Signer, error) {
	return a.verify(message, sum[:], armored, namespace, at)
}

func (a *AllowedSigners) verify(message, sum256, armored []byte, namespace string, at time.Time) (Signer, error) {
	sig, err := Parse(armored)
	if err != nil {
		return Signer{}, err
	}
	if sig.Namespace != namespace {
		return Signer{}, fmt.Errorf("%w: it is for %q, not %q", ErrNamespace, clip(sig.Namespace), namespace)
	}
	e, ok := a.trusted(sig.PublicKey, namespace, at)
	if !ok {
		return Signer{}, fmt.Errorf("%w: %s key %s", ErrUnknownSigner, sig.PublicKey.Type(), Fingerprint(sig.PublicKey))
	}
	if err := sig.verify(message, sum256, namespace); err != nil {
		return Signer{}, err
	}
	return Signer{Principal: e.principals, Fingerprint: e.fingerprint, KeyType: e.key.Type()}, nil
}

// trusted finds the first line that trusts key for namespace at time at.
func (a *AllowedSigners) trusted(key ssh.PublicKey, namespace string, at time.Time) (entry, bool) {
	raw := string(key.Marshal())
	for _, e := range a.entries {
		if e.raw != raw || (e.namespaces != "" && !matchList(namespace, e.namespaces)) {
			continue
		}
		if (!e.after.IsZero() && at.Before(e.after)) || (!e.before.IsZero() && !at.Before(e.before)) {
			continue
		}
		return e, true
	}
	return entry{}, false
}

// matchList reports whether s matches the comma-separated pattern list as
// OpenSSH's match_pattern_list does: a negated match (!pattern) refuses,
// else any match accepts.
func matchList(s, list string) bool {
	ok := false
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		neg := strings.HasPrefix(p, "!")
		if match(s, strings.TrimPrefix(p, "!")) {
			if neg {
				return false
			}
			ok = true
		}
	}
	return ok
}

// match is OpenSSH's wildcard match: * is any run, ? any one byte.
func match(s, p string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if match(s[i:], p[1:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		s, p = s[1:], p[1:]
	}
	return s == ""
}
