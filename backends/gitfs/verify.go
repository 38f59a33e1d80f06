package gitfs

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// Verifier is a signer policy for git sources (Options.Verify, the URL's
// verify=): a commit is served only when it, or the annotated tag the
// source's ref names, carries a valid signature by a key the policy
// trusts. It holds an allowed-signers file (ssh-keygen(1), ALLOWED
// SIGNERS) for SSH signatures (git's gpg.format=ssh, namespace "git",
// checked against the clock for valid-after and valid-before, as
// snapshots are: not at the commit's or tag's own time, which its
// signer wrote), an armored OpenPGP public keyring for OpenPGP
// signatures (checked as go-git and git do: a key expired or revoked
// now is refused), or one of each. A tag counts only when the ref names
// it (ref=v1, not a branch or a SHA at its commit), only for the commit
// it leads to, and only under its own name: a ref whose tag object
// carries another name (refs/tags/v2 pointing at the tag v1) is refused
// ("replayed").
//
// Limits: the trust files LoadVerifier and ParseVerifier read are read
// once (a change takes a restart; Repo.RequireSigners takes a list that
// is asked for at each check instead); a trust file is at most
// MaxTrustFileBytes; a signature over MaxSignatureBytes is refused
// unread. Keys of weak or unsupported types (DSA, RSA under 2048 bits,
// SSH security keys and certificates, OpenPGP keys of algorithms
// go-crypto cannot read) are refused when the policy is read, named. A
// Verifier is immutable and safe for concurrent use.
type Verifier struct {
	ssh func() *sshsig.AllowedSigners // the SSH keys trusted now; nil without an allowed-signers file
	pgp openpgp.EntityList
}

// now is the clock keys are checked against (tests set it).
var now = time.Now

// signers is the allowed-signers list in force now: nil without a policy
// or an allowed-signers file, or when the list is empty.
func (v *Verifier) signers() *sshsig.AllowedSigners {
	if v == nil || v.ssh == nil {
		return nil
	}
	return v.ssh()
}

// MaxTrustFileBytes bounds a trust file: an allowed-signers file or an
// OpenPGP keyring.
const MaxTrustFileBytes = sshsig.MaxAllowedSignersBytes

// MaxSignatureBytes bounds the signature of a commit or a tag: a larger
// one is refused ("malformed") before it is parsed. An armored SSH or
// OpenPGP signature by an RSA-16384 key takes under 6 KiB.
const MaxSignatureBytes = sshsig.MaxSignatureBytes

const (
	sshArmor    = "-----BEGIN SSH SIGNATURE-----"
	pgpArmor    = "-----BEGIN PGP SIGNATURE-----"
	pgpKeyArmor = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
	gitNS       = "git" // the SSHSIG namespace git signs commits and tags in
)

// LoadVerifier reads a signer policy from trust files: at most one
// allowed-signers file and one armored OpenPGP public keyring (a file
// beginning "-----BEGIN PGP PUBLIC KEY BLOCK-----"). Its errors name the
// file by its kind or its position among files, never by its path, and
// a bad line of an allowed-signers file by its number.
func LoadVerifier(files ...string) (*Verifier, error) {
	data := make([][]byte, len(files))
	for i, f := range files {
		b, err := readTrustFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s %s", ordinal(i, len(files)), err)
		}
		data[i] = b
	}
	return ParseVerifier(data...)
}

// ordinal names the i-th of n trust files.
func ordinal(i, n int) string {
	if n == 1 {
		return "the trust file"
	}
	return fmt.Sprintf("trust file %d of %d", i+1, n)
}

// readTrustFile reads a trust file of at most MaxTrustFileBytes; its
// errors say what is wrong without the path.
func readTrustFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("does not exist")
	case errors.Is(err, fs.ErrPermission):
		return nil, errors.New("is not readable (permission denied)")
	case err != nil:
		return nil, errors.New("cannot be opened")
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTrustFileBytes+1))
	switch {
	case err != nil:
		return nil, errors.New("cannot be read (is it a folder?)")
	case len(b) > MaxTrustFileBytes:
		return nil, fmt.Errorf("is over %d bytes, the limit", MaxTrustFileBytes)
	}
	return b, nil
}

// ParseVerifier makes a signer policy from the contents of trust files:
// at most one allowed-signers file and one armored OpenPGP public
// keyring, told apart by the keyring's armor header.
func ParseVerifier(trust ...[]byte) (*Verifier, error) {
	if len(trust) == 0 {
		return nil, errors.New("no trust file is given")
	}
	v := &Verifier{}
	for _, data := range trust {
		if len(data) > MaxTrustFileBytes {
			return nil, fmt.Errorf("a trust file is %d bytes; the limit is %d", len(data), MaxTrustFileBytes)
		}
		if IsKeyring(data) {
			if v.pgp != nil {
				return nil, errors.New("two OpenPGP keyrings are given; give at most one allowed-signers file and one OpenPGP keyring")
			}
			ring, err := readKeyring(data)
			if err != nil {
				return nil, fmt.Errorf("the OpenPGP keyring: %w", err)
			}
			v.pgp = ring
			continue
		}
		if v.ssh != nil {
			return nil, errors.New("two allowed-signers files are given; give at most one allowed-signers file and one OpenPGP keyring")
		}
		a, err := sshsig.ParseAllowedSigners(data)
		if err != nil {
			return nil, fmt.Errorf("the allowed-signers file: %w", err)
		}
		v.ssh = func() *sshsig.AllowedSigners { return a }
	}
	return v, nil
}

// IsKeyring reports whether a trust file's contents (or their first
// bytes) are an armored OpenPGP public keyring rather than an
// allowed-signers file: whether they begin, after white space, with
// "-----BEGIN PGP PUBLIC KEY BLOCK-----".
func IsKeyring(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte(pgpKeyArmor))
}

// readKeyring reads an armored OpenPGP public keyring (one armored block
// or several, one after the other, as `gpg --armor --export` run once
// for each key writes), refusing it whole if a key in it cannot be read
// (go-crypto would skip it silently) or is of a weak or unsupported type.
func readKeyring(data []byte) (openpgp.EntityList, error) {
	var body []byte
	blocks := bytes.Split(data, []byte(pgpKeyArmor))
	for i, text := range blocks[1:] {
		block, err := armor.Decode(io.MultiReader(strings.NewReader(pgpKeyArmor), bytes.NewReader(text)))
		if err != nil || block.Type != openpgp.PublicKeyType {
			return nil, fmt.Errorf("its armored block %d is not an OpenPGP public key block", i+1)
		}
		b, err := io.ReadAll(block.Body)
		if err != nil {
			return nil, fmt.Errorf("its armored block %d is damaged (bad base64 or checksum)", i+1)
		}
		body = append(body, b...)
	}
	primaries := 0
	op := packet.NewOpaqueReader(bytes.NewReader(body))
	for {
		p, err := op.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, errors.New("its packets cannot be read")
		}
		if p.Tag == 5 || p.Tag == 6 { // a secret or public primary key
			primaries++
		}
	}
	ring, err := openpgp.ReadKeyRing(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("it cannot be read (%s)", store.Echo(err.Error()))
	}
	if len(ring) != primaries {
		return nil, fmt.Errorf("%d of its %d keys cannot be read (unsupported algorithm or damaged)", primaries-len(ring), primaries)
	}
	for _, e := range ring {
		if err := checkEntity(e); err != nil {
			return nil, fmt.Errorf("key %s (%s): %w", pgpFingerprint(e.PrimaryKey), store.Echo(identity(e)), err)
		}
	}
	return ring, nil
}

// checkEntity refuses an OpenPGP key whose primary key, or a subkey that
// may sign, is of a weak or unsupported type.
func checkEntity(e *openpgp.Entity) error {
	if err := checkPGPKey(e.PrimaryKey); err != nil {
		return err
	}
	for _, sub := range e.Subkeys {
		if !sub.PublicKey.CanSign() || (sub.Sig != nil && sub.Sig.FlagsValid && !sub.Sig.FlagSign) {
			continue // an encryption subkey: it cannot make a signature
		}
		if err := checkPGPKey(sub.PublicKey); err != nil {
			return fmt.Errorf("its subkey %s: %w", sub.PublicKey.KeyIdString(), err)
		}
	}
	return nil
}

// checkPGPKey accepts Ed25519, Ed448, ECDSA (every curve go-crypto
// reads has 256 bits or more) and RSA of at least sshsig.MinRSABits.
func checkPGPKey(pk *packet.PublicKey) error {
	bits, _ := pk.BitLength()
	switch pk.PubKeyAlgo {
	case packet.PubKeyAlgoEdDSA, packet.PubKeyAlgoEd25519, packet.PubKeyAlgoEd448, packet.PubKeyAlgoECDSA:
		return nil
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSASignOnly:
		if int(bits) >= sshsig.MinRSABits {
			return nil
		}
		return fmt.Errorf("%w: a %d-bit RSA key is weak; use Ed25519, ECDSA or RSA of at least %d bits", sshsig.ErrKeyType, bits, sshsig.MinRSABits)
	case packet.PubKeyAlgoDSA:
		return fmt.Errorf("%w: DSA keys are weak; use Ed25519", sshsig.ErrKeyType)
	}
	return fmt.Errorf("%w: OpenPGP algorithm %d cannot sign", sshsig.ErrKeyType, pk.PubKeyAlgo)
}

func pgpFingerprint(pk *packet.PublicKey) string {
	return strings.ToUpper(hex.EncodeToString(pk.Fingerprint))
}

// identity is an OpenPGP key's primary identity, "Name <email>".
func identity(e *openpgp.Entity) string {
	if id := e.PrimaryIdentity(); id != nil {
		return id.Name
	}
	return ""
}

// refusal is why a commit or tag does not verify: Reason is one of
// store.VerifyError's words, why says it in a sentence naming no host.
type refusal struct{ reason, why string }

func refuse(reason, format string, a ...any) *refusal {
	return &refusal{reason: reason, why: fmt.Sprintf(format, a...)}
}

// verify checks sig, a commit's gpgsig header or a tag's trailing
// signature, against the object encode writes without it (go-git's
// EncodeWithoutSignature: the object's own bytes, less the signature),
// now.
func (v *Verifier) verify(sig string, encode func(plumbing.EncodedObject) error) (store.Signer, *refusal) {
	switch {
	case sig == "":
		return store.Signer{}, refuse("unsigned", "it is not signed")
	case len(sig) > MaxSignatureBytes:
		return store.Signer{}, refuse("malformed", "its signature is %d bytes; the limit is %d", len(sig), MaxSignatureBytes)
	case strings.TrimSpace(sig) == "":
		return store.Signer{}, refuse("malformed", "its signature is empty")
	case strings.Count("\n"+sig, "\n-----BEGIN ") > 1:
		return store.Signer{}, refuse("malformed", "it carries more than one signature")
	}
	var payload plumbing.MemoryObject
	if err := encode(&payload); err != nil {
		return store.Signer{}, refuse("malformed", "it cannot be read without its signature")
	}
	rd, err := payload.Reader()
	if err != nil {
		return store.Signer{}, refuse("malformed", "it cannot be read without its signature")
	}
	message, _ := io.ReadAll(rd) // from memory: it cannot fail
	switch {
	case strings.HasPrefix(sig, sshArmor):
		return v.verifySSH(message, sig)
	case strings.HasPrefix(sig, pgpArmor):
		return v.verifyPGP(message, sig)
	}
	first, _, _ := strings.Cut(sig, "\n")
	return store.Signer{}, refuse("malformed", "its signature is neither an SSH nor an OpenPGP signature (it begins \"%s\")", store.Echo(first))
}

// verifySSH checks an SSHSIG signature in namespace "git", by a key the
// allowed-signers list trusts now (its valid-after and valid-before
// against the clock).
func (v *Verifier) verifySSH(message []byte, sig string) (store.Signer, *refusal) {
	if v.ssh == nil {
		s, err := sshsig.Parse([]byte(sig))
		if err != nil {
			return store.Signer{}, refuse("malformed", "%s", err)
		}
		return store.Signer{}, refuse("unknown-signer", "it is signed by the SSH key %s %s, and no allowed-signers file is given", s.PublicKey.Type(), sshsig.Fingerprint(s.PublicKey))
	}
	signers := v.ssh()
	if signers == nil {
		return store.Signer{}, refuse("unknown-signer", "no signer is trusted (the trusted-signers list is empty)")
	}
	s, err := signers.Verify(message, []byte(sig), gitNS, now())
	switch {
	case err == nil:
		return store.Signer{Kind: "ssh", Fingerprint: s.Fingerprint, Principal: s.Principal}, nil
	case errors.Is(err, sshsig.ErrUnknownSigner), errors.Is(err, sshsig.ErrKeyType):
		return store.Signer{}, refuse("unknown-signer", "%s", err)
	case errors.Is(err, sshsig.ErrNamespace), errors.Is(err, sshsig.ErrBadSignature):
		return store.Signer{}, refuse("bad-signature", "%s", err)
	}
	return store.Signer{}, refuse("malformed", "%s", err)
}

// verifyPGP checks an armored OpenPGP signature as go-git's Commit.Verify
// does (go-crypto's CheckArmoredDetachedSignature, at the present time).
func (v *Verifier) verifyPGP(message []byte, sig string) (store.Signer, *refusal) {
	issuer, err := pgpIssuer(sig)
	if err != nil {
		return store.Signer{}, refuse("malformed", "its OpenPGP signature cannot be read")
	}
	if v.pgp == nil {
		return store.Signer{}, refuse("unknown-signer", "it is signed by the OpenPGP key %s, and no OpenPGP keyring is given", issuer)
	}
	e, err := openpgp.CheckArmoredDetachedSignature(v.pgp, bytes.NewReader(message), strings.NewReader(sig), &packet.Config{Time: now})
	var sigErr pgperrors.SignatureError
	switch {
	case err == nil:
		return store.Signer{Kind: "openpgp", Fingerprint: pgpFingerprint(e.PrimaryKey), Principal: identity(e)}, nil
	case errors.Is(err, pgperrors.ErrUnknownIssuer):
		return store.Signer{}, refuse("unknown-signer", "the signing key is not in the OpenPGP keyring: OpenPGP key %s", issuer)
	case errors.Is(err, pgperrors.ErrKeyExpired), errors.Is(err, pgperrors.ErrKeyRevoked), errors.Is(err, pgperrors.ErrSignatureExpired):
		return store.Signer{}, refuse("unknown-signer", "the OpenPGP key %s is no longer trusted: %s", issuer, store.Echo(err.Error()))
	case errors.As(err, &sigErr):
		return store.Signer{}, refuse("bad-signature", "the signature does not match the signed content")
	}
	return store.Signer{}, refuse("malformed", "its OpenPGP signature cannot be checked (%s)", store.Echo(err.Error()))
}

// pgpIssuer names the key an armored OpenPGP signature says made it: its
// fingerprint, else its key ID.
func pgpIssuer(sig string) (string, error) {
	block, err := armor.Decode(strings.NewReader(sig))
	if err != nil || block.Type != openpgp.SignatureType {
		return "", errors.New("not an armored OpenPGP signature")
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return "", err
	}
	s, ok := p.(*packet.Signature)
	switch {
	case !ok:
		return "", errors.New("not a signature packet")
	case len(s.IssuerFingerprint) > 0:
		return strings.ToUpper(hex.EncodeToString(s.IssuerFingerprint)), nil
	case s.IssuerKeyId != nil:
		return fmt.Sprintf("with key ID %016X", *s.IssuerKeyId), nil
	}
	return "", errors.New("the signature names no issuer")
}

// check verifies commit c, what target to names, against r's signer
// policy before any of its tree is read: the signature of tag (the
// annotated tag the ref names, nil for none; see peelTag) counts, else
// c's own. It returns the signer (nil without a policy) or a
// *store.VerifyError saying which commit is refused and why. A tag that
// carries another name than the ref it was reached by is refused,
// whatever is signed: a signed tag v1 pointed at by refs/tags/v2 would
// serve v1 as v2.
func (r *Repo) check(to target, tag *object.Tag, c *object.Commit) (*store.Signer, error) {
	if r.verify == nil {
		return nil, nil
	}
	var tagWhy *refusal
	tagName := strconv.Quote(store.Echo(to.name.Short()))
	if tag != nil && tag.Name != to.name.Short() {
		return nil, &store.VerifyError{Reason: "replayed", Err: &Error{Location: r.shown,
			Detail: fmt.Sprintf("commit %s is not served: the ref %s leads to a tag object named %s, not %s (a tag reached by another name); make %s a tag of its own (git tag -s)",
				short(to.commit), tagName, strconv.Quote(store.Echo(tag.Name)), tagName, tagName), public: true}}
	}
	if tag != nil {
		s, why := r.verify.verify(tag.PGPSignature, tag.EncodeWithoutSignature)
		if why == nil {
			return &s, nil
		}
		tagWhy = why
	}
	s, why := r.verify.verify(c.PGPSignature, c.EncodeWithoutSignature)
	if why == nil {
		return &s, nil
	}
	switch {
	case tagWhy == nil:
	case tagWhy.reason != "unsigned": // the tag's signature failed: that is news
		why = refuse(tagWhy.reason, "its tag %s: %s", tagName, tagWhy.why)
	case why.reason == "unsigned":
		why = refuse("unsigned", "neither it nor its tag %s is signed", tagName)
	}
	return nil, &store.VerifyError{Reason: why.reason, Err: &Error{Location: r.shown,
		Detail: fmt.Sprintf("commit %s is not served: %s", short(to.commit), why.why), public: true}}
}

// peelTag returns the annotated tag h if it leads, through at most a few
// tags of tags, to commit want; else nil (h zero, missing or elsewhere).
func peelTag(repo *git.Repository, h, want plumbing.Hash) *object.Tag {
	if h.IsZero() {
		return nil
	}
	outer, err := repo.TagObject(h)
	for t, depth := outer, 0; err == nil && depth < 8; depth++ {
		switch t.TargetType {
		case plumbing.CommitObject:
			if t.Target == want {
				return outer
			}
			return nil
		case plumbing.TagObject:
			t, err = repo.TagObject(t.Target)
		default:
			return nil
		}
	}
	return nil
}
