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
// and options, comma-separated, each at most once, are namespaces="a,b"
// (the purposes the key may sign for; patterns with * and ? allowed, !
// negates; "" allows none), valid-after="YYYYMMDD[HHMM[SS]][Z]" and
// valid-before="…" (local time unless Z or UTC). Blank lines and lines
// beginning with # are skipped. cert-authority lines are refused (no
// certificates are accepted). See ParseAllowedSigners for how closely
// this follows ssh-keygen.
type AllowedSigners struct {
	entries []entry
}

type entry struct {
	line        int
	principals  string
	key         ssh.PublicKey
	raw         string // key.Marshal()
	namespaces  string // the option's value, when restricted
	restricted  bool   // a namespaces option was given ("" then allows none)
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

// ParseAllowedSigners reads an allowed-signers file as ssh-keygen reads it
// (sshsig.c's parse_principals_key_and_options and sshsigopt_parse),
// refusing every line ssh-keygen refuses, and some it accepts:
// cert-authority lines (no certificates are accepted), empty principals
// (ssh-keygen never matches them) and NUL bytes (ssh-keygen reads a line
// only up to one). Options must be written as ssh-keygen takes them:
// quoted values (namespaces="git"), each option once, names in any case;
// a namespaces list is matched as written, spaces included, and an empty
// one (namespaces="") allows no namespace. A line that cannot be used
// fails the whole file with a *LineError naming it (a verifier must not
// trust a partial list); so does a file over MaxAllowedSignersBytes. A
// file that lists no key (empty, or only comments) is a list that trusts
// nothing (Len 0): emptying the file, or commenting out its only key,
// revokes every key, as it does for ssh-keygen; callers should say so
// loudly.
func ParseAllowedSigners(data []byte) (*AllowedSigners, error) {
	if len(data) > MaxAllowedSignersBytes {
		return nil, fmt.Errorf("the allowed-signers file is %d bytes; the limit is %d", len(data), MaxAllowedSignersBytes)
	}
	a := &AllowedSigners{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimLeft(line, lineSpace) // as ssh-keygen skips them
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		e, err := parseLine(string(bytes.TrimRight(line, lineSpace)))
		if err != nil {
			return nil, &LineError{Line: n + 1, Err: err}
		}
		e.line = n + 1
		a.entries = append(a.entries, e)
	}
	return a, nil
}

// lineSpace is what ssh-keygen skips before a line's first field.
const lineSpace = " \t\r\n"

func parseLine(line string) (entry, error) {
	if strings.IndexByte(line, 0) >= 0 {
		return entry{}, errors.New("the line holds a NUL byte")
	}
	principals, rest, err := firstField(line)
	if err != nil {
		return entry{}, err
	}
	if principals == "" {
		return entry{}, errors.New("the principals are empty")
	}
	if rest == "" {
		return entry{}, errors.New("a principal is followed by no key; write: principals [options] keytype base64-key")
	}
	// A key right after the principals, else options and then a key.
	key, ok := keyAt(rest)
	opts := ""
	if !ok {
		end, err := pastOptions(rest)
		if err != nil {
			return entry{}, err
		}
		opts, rest = rest[:end], strings.TrimLeft(rest[end:], " \t")
		if rest == "" {
			return entry{}, errors.New("the options are followed by no key; write: principals [options] keytype base64-key")
		}
		if key, ok = keyAt(rest); !ok {
			_, _, _, _, err := ssh.ParseAuthorizedKey([]byte(rest))
			why := "not a key"
			if err != nil {
				why = strings.TrimPrefix(err.Error(), "ssh: ")
			}
			return entry{}, fmt.Errorf("no readable public key after the principals and options (%s)", why)
		}
	}
	if err := CheckKey(key); err != nil {
		return entry{}, err
	}
	e := entry{principals: principals, key: key, raw: string(key.Marshal()), fingerprint: Fingerprint(key)}
	if err := parseOptions(opts, &e); err != nil {
		return entry{}, err
	}
	return e, nil
}

// keyAt reads the key s starts with ("keytype base64 [comment]"), with
// no options before it.
// ssh.ParseAuthorizedKey skips the keytype field unread: it must name
// the key's own type, as ssh-keygen checks, or a line of options and a
// key with no keytype (alice namespaces="git" AAAA…) would be read as a
// key of no options.
func keyAt(s string) (ssh.PublicKey, bool) {
	typ := s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		typ = s[:i]
	}
	key, _, opts, _, err := ssh.ParseAuthorizedKey([]byte(s))
	return key, err == nil && len(opts) == 0 && key.Type() == typ
}

// pastOptions returns where the options s starts with end: at the first
// space or tab outside quotes (sshkey_advance_past_options).
func pastOptions(s string) (int, error) {
	quoted := false
	i := 0
	for ; i < len(s) && (quoted || s[i] != ' ' && s[i] != '\t'); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			i++
		case s[i] == '"':
			quoted = !quoted
		}
	}
	if quoted {
		return 0, errors.New("a quote in the options is not closed")
	}
	return i, nil
}

// parseOptions reads a line's options into e, as sshsigopt_parse does:
// comma-separated, names in any case, values quoted, each option once.
func parseOptions(opts string, e *entry) error {
	seen := map[string]bool{}
	for opts != "" {
		name := ""
		for _, n := range []string{"cert-authority", "namespaces=", "valid-after=", "valid-before="} {
			if len(opts) >= len(n) && strings.EqualFold(opts[:len(n)], n) {
				name = n
				break
			}
		}
		switch name {
		case "":
			opt, _, _ := strings.Cut(opts, ",")
			return fmt.Errorf("unknown option %q (ssh-keygen knows namespaces, valid-after, valid-before)", clip(opt))
		case "cert-authority":
			return errors.New("cert-authority lines are not supported; list the signer's own key")
		}
		name = strings.TrimSuffix(name, "=")
		if seen[name] {
			return fmt.Errorf("the option %s is given twice", name)
		}
		seen[name] = true
		value, rest, err := dequote(opts[len(name)+1:])
		if err != nil {
			return fmt.Errorf("the option %s: %w", name, err)
		}
		switch name {
		case "namespaces":
			e.namespaces, e.restricted = value, true
		case "valid-after":
			e.after, err = parseTime(value)
		case "valid-before":
			e.before, err = parseTime(value)
		}
		if err != nil {
			return err
		}
		switch {
		case rest == "":
		case rest[0] != ',':
			opt, _, _ := strings.Cut(opts, ",")
			return fmt.Errorf("unknown option %q (ssh-keygen knows namespaces, valid-after, valid-before)", clip(opt))
		case rest == ",":
			return errors.New("the options end with a comma")
		default:
			rest = rest[1:]
		}
		opts = rest
	}
	if !e.after.IsZero() && !e.before.IsZero() && !e.before.After(e.after) {
		return errors.New("valid-before is not after valid-after")
	}
	return nil
}

// dequote reads the quoted value s starts with (opt_dequote: \" stands
// for a quote), returning it and what follows it.
func dequote(s string) (value, rest string, err error) {
	if s == "" || s[0] != '"' {
		return "", "", errors.New(`its value must be quoted: name="value"`)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '"':
			return b.String(), s[i+1:], nil
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			i++
		}
		b.WriteByte(s[i])
	}
	return "", "", errors.New("its quoted value is not closed")
}

// firstField splits off the principals field, which may be quoted, as
// ssh-keygen's strdelimw does, and the space after it.
func firstField(s string) (field, rest string, err error) {
	if s[0] == '"' {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", errors.New("the quoted principals are not closed")
		}
		return s[1 : end+1], strings.TrimLeft(s[end+2:], lineSpace), nil
	}
	i := strings.IndexAny(s, lineSpace+`"`)
	switch {
	case i < 0:
		return s, "", nil
	case s[i] == '"':
		return "", "", errors.New("a quote inside the principals; quote them whole")
	}
	return s[:i], strings.TrimLeft(s[i:], lineSpace), nil
}

// parseTime reads a valid-after/valid-before time: YYYYMMDD, YYYYMMDDHHMM
// or YYYYMMDDHHMMSS, in UTC with a Z or UTC suffix (any case) and local
// time without, as parse_absolute_time does.
func parseTime(v string) (time.Time, error) {
	loc := time.Local
	switch {
	case len(v) > 1 && strings.EqualFold(v[len(v)-1:], "Z"):
		v, loc = v[:len(v)-1], time.UTC
	case len(v) > 3 && strings.EqualFold(v[len(v)-3:], "UTC"):
		v, loc = v[:len(v)-3], time.UTC
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
		if e.raw != raw || (e.restricted && !matchList(namespace, e.namespaces)) {
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
// OpenSSH's match_pattern_list does: each pattern as written (spaces are
// part of it), a negated match (!pattern) refuses, else any match
// accepts; a pattern of 1,023 bytes or more matches nothing, and makes
// the list match nothing.
func matchList(s, list string) bool {
	ok := false
	for _, p := range strings.Split(list, ",") {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		if len(p) >= maxPattern {
			return false
		}
		if match(s, p) {
			if neg {
				return false
			}
			ok = true
		}
	}
	return ok
}

// maxPattern is the size of match_pattern_list's buffer for one pattern.
const maxPattern = 1023

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
