// Package sshsig signs and verifies messages in OpenSSH's SSHSIG format
// (PROTOCOL.sshsig), the format of `ssh-keygen -Y sign` and of git's SSH
// signatures, and reads the keys a verifier trusts from an allowed-signers
// file (ssh-keygen(1), ALLOWED SIGNERS).
//
// A signature is bound to a namespace ("git" for git, a project's own
// word elsewhere), so one made for one purpose cannot be replayed for
// another. Signing hashes the message with SHA-512, as ssh-keygen does;
// verifying accepts SHA-256 and SHA-512. Keys are Ed25519, ECDSA
// (NIST P-256, P-384, P-521) and RSA of at least 2048 bits (signed with
// rsa-sha2-512, verified with rsa-sha2-256 or -512); DSA, short RSA,
// security-key (sk-) keys and certificates are refused by name.
//
// Limits: an armored signature is at most MaxSignatureBytes; an
// allowed-signers file at most MaxAllowedSignersBytes.
package sshsig

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/logtext"
)

// MaxSignatureBytes bounds an armored signature: an RSA-16384 key and
// signature armored take under 6 KiB.
const MaxSignatureBytes = 16 << 10

const (
	magic      = "SSHSIG"
	sigVersion = 1
	armorBegin = "-----BEGIN SSH SIGNATURE-----"
	armorEnd   = "-----END SSH SIGNATURE-----"
	// hashSign is the hash Sign uses, as ssh-keygen does.
	hashSign = "sha512"
)

// Errors of parsing and verifying. Each error a function returns wraps one.
var (
	// ErrMalformed: not an SSHSIG signature (empty, truncated, another
	// format, another version, over MaxSignatureBytes).
	ErrMalformed = errors.New("not an SSH signature (SSHSIG)")
	// ErrNamespace: the signature was made for another namespace.
	ErrNamespace = errors.New("the signature was made for another purpose (namespace)")
	// ErrBadSignature: the signature does not match the message.
	ErrBadSignature = errors.New("the signature does not match the signed content")
	// ErrUnknownSigner: the key that made the signature is not trusted for
	// this namespace at this time.
	ErrUnknownSigner = errors.New("the signing key is not among the trusted signers")
	// ErrKeyType: a key of a weak or unsupported type.
	ErrKeyType = errors.New("unsupported or weak key type")
)

// Signature is a parsed SSHSIG signature.
type Signature struct {
	// PublicKey is the key the signature says made it (unverified until
	// Verify succeeds).
	PublicKey ssh.PublicKey
	// Namespace is the purpose the signature was made for.
	Namespace string
	// HashAlgorithm is "sha256" or "sha512".
	HashAlgorithm string
	sig           *ssh.Signature
}

// Parse reads an armored signature (as `ssh-keygen -Y sign` writes it).
func Parse(armored []byte) (*Signature, error) {
	if len(armored) > MaxSignatureBytes {
		return nil, fmt.Errorf("%w: it is %d bytes; the limit is %d", ErrMalformed, len(armored), MaxSignatureBytes)
	}
	text := strings.TrimSpace(string(armored))
	body, ok := strings.CutPrefix(text, armorBegin)
	if ok {
		body, ok = strings.CutSuffix(body, armorEnd)
	}
	if !ok {
		return nil, fmt.Errorf("%w: it does not begin with %q and end with %q", ErrMalformed, armorBegin, armorEnd)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		return nil, fmt.Errorf("%w: its body is not base64", ErrMalformed)
	}
	return parseBlob(raw)
}

// wireSignature is the SSHSIG blob, as PROTOCOL.sshsig lays it out.
type wireSignature struct {
	Magic     [6]byte
	Version   uint32
	PublicKey []byte
	Namespace string
	Reserved  string
	Hash      string
	Signature []byte
}

func parseBlob(raw []byte) (*Signature, error) {
	var blob wireSignature
	if err := ssh.Unmarshal(raw, &blob); err != nil || string(blob.Magic[:]) != magic {
		return nil, fmt.Errorf("%w: its body is truncated or of another format", ErrMalformed)
	}
	if blob.Version != sigVersion {
		return nil, fmt.Errorf("%w: version %d (this reads version %d)", ErrMalformed, blob.Version, sigVersion)
	}
	pub, err := ssh.ParsePublicKey(blob.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("%w: its public key cannot be read", ErrMalformed)
	}
	if err := CheckKey(pub); err != nil {
		return nil, err
	}
	if _, err := newHash(blob.Hash); err != nil {
		return nil, err
	}
	sig := new(ssh.Signature)
	if err := ssh.Unmarshal(blob.Signature, sig); err != nil {
		return nil, fmt.Errorf("%w: its signature field cannot be read", ErrMalformed)
	}
	return &Signature{PublicKey: pub, Namespace: blob.Namespace, HashAlgorithm: blob.Hash, sig: sig}, nil
}

// Verify checks that s is a signature of message for namespace by
// s.PublicKey. It says nothing of whether that key is trusted: see
// AllowedSigners.Verify.
func (s *Signature) Verify(message []byte, namespace string) error {
	return s.verify(message, nil, namespace)
}

// verify is Verify, given the message's SHA-256 when known (sum256), so
// that a signature made over SHA-256 costs no second pass over a large
// message.
func (s *Signature) verify(message []byte, sum256 []byte, namespace string) error {
	if s.Namespace != namespace {
		return fmt.Errorf("%w: it is for %q, not %q", ErrNamespace, clip(s.Namespace), namespace)
	}
	if s.PublicKey.Type() == ssh.KeyAlgoRSA && s.sig.Format == ssh.KeyAlgoRSA {
		return fmt.Errorf("%w: an RSA signature made with SHA-1 (ssh-rsa) is refused; sign with rsa-sha2-512", ErrBadSignature)
	}
	digest := sum256
	if s.HashAlgorithm != "sha256" || len(digest) != sha256.Size {
		h, _ := newHash(s.HashAlgorithm) // checked by Parse
		h.Write(message)
		digest = h.Sum(nil)
	}
	if err := s.PublicKey.Verify(signedData(namespace, s.HashAlgorithm, digest), s.sig); err != nil {
		return ErrBadSignature
	}
	return nil
}

// Sign signs message for namespace with signer and returns the armored
// signature, which `ssh-keygen -Y verify -n NAMESPACE` accepts.
func Sign(signer ssh.Signer, message []byte, namespace string) ([]byte, error) {
	h := sha512.Sum512(message)
	return sign(signer, hashSign, h[:], namespace)
}

// SignSHA256 signs the message whose SHA-256 is sum, with the SHA-256 hash
// algorithm (which `ssh-keygen -Y verify` accepts as well): a verifier
// that already knows the message's SHA-256 (VerifySHA256) then checks the
// signature without hashing the message again.
func SignSHA256(signer ssh.Signer, sum [sha256.Size]byte, namespace string) ([]byte, error) {
	return sign(signer, "sha256", sum[:], namespace)
}

func sign(signer ssh.Signer, hashName string, digest []byte, namespace string) ([]byte, error) {
	if namespace == "" {
		return nil, errors.New("sshsig: a signature needs a namespace")
	}
	pub := signer.PublicKey()
	if err := CheckKey(pub); err != nil {
		return nil, err
	}
	data := signedData(namespace, hashName, digest)
	var sig *ssh.Signature
	var err error
	if as, ok := signer.(ssh.AlgorithmSigner); ok && pub.Type() == ssh.KeyAlgoRSA {
		sig, err = as.SignWithAlgorithm(rand.Reader, data, ssh.KeyAlgoRSASHA512)
	} else if pub.Type() == ssh.KeyAlgoRSA {
		return nil, fmt.Errorf("sshsig: %w: this RSA signer cannot sign with rsa-sha2-512", ErrKeyType)
	} else {
		sig, err = signer.Sign(rand.Reader, data)
	}
	if err != nil {
		return nil, fmt.Errorf("sshsig: signing: %w", err)
	}
	blob := ssh.Marshal(wireSignature{[6]byte([]byte(magic)), sigVersion, pub.Marshal(), namespace, "", hashName, ssh.Marshal(sig)})
	return armor(blob), nil
}

// armor wraps blob as ssh-keygen does: base64 in lines of 70 characters.
func armor(blob []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(blob)
	var b bytes.Buffer
	b.WriteString(armorBegin + "\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n" + armorEnd + "\n")
	return b.Bytes()
}

// signedData is what the key signs: the preamble, the namespace, the hash
// algorithm's name and the message's hash.
func signedData(namespace, hashName string, digest []byte) []byte {
	return append([]byte(magic), ssh.Marshal(struct {
		Namespace string
		Reserved  string
		Hash      string
		Digest    []byte
	}{namespace, "", hashName, digest})...)
}

func newHash(name string) (hash.Hash, error) {
	switch name {
	case "sha256":
		return sha256.New(), nil
	case "sha512":
		return sha512.New(), nil
	}
	return nil, fmt.Errorf("%w: hash algorithm %q (sha256 and sha512 are accepted)", ErrMalformed, clip(name))
}

// MinRSABits is the smallest RSA key accepted.
const MinRSABits = 2048

// CheckKey refuses keys of weak or unsupported types, naming the type.
func CheckKey(pub ssh.PublicKey) error {
	switch t := pub.Type(); t {
	case ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521:
		return nil
	case ssh.KeyAlgoRSA:
		ck, ok := pub.(ssh.CryptoPublicKey)
		if !ok {
			return fmt.Errorf("%w: ssh-rsa key of unknown size", ErrKeyType)
		}
		if k, ok := ck.CryptoPublicKey().(*rsa.PublicKey); !ok || k.N.BitLen() < MinRSABits {
			bits := 0
			if ok {
				bits = k.N.BitLen()
			}
			return fmt.Errorf("%w: a %d-bit RSA key is weak; use Ed25519, ECDSA or RSA of at least %d bits", ErrKeyType, bits, MinRSABits)
		}
		return nil
	case ssh.InsecureKeyAlgoDSA:
		return fmt.Errorf("%w: ssh-dss (DSA) keys are weak; use Ed25519", ErrKeyType)
	case ssh.KeyAlgoSKED25519, ssh.KeyAlgoSKECDSA256:
		return fmt.Errorf("%w: %s (security-key) keys are not supported yet; use an Ed25519 or ECDSA key", ErrKeyType, t)
	default:
		if strings.Contains(t, "-cert-") {
			return fmt.Errorf("%w: %s certificates are not supported; list the signer's own key", ErrKeyType, t)
		}
		return fmt.Errorf("%w: %s", ErrKeyType, clip(t))
	}
}

// Fingerprint is the key's SHA-256 fingerprint as `ssh-keygen -l` prints
// it ("SHA256:…").
func Fingerprint(pub ssh.PublicKey) string { return ssh.FingerprintSHA256(pub) }

// clip bounds text taken from a signature or a file before it is echoed.
func clip(s string) string { return logtext.Clip(s, 64) }
