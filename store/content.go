package store

import "io/fs"

// ContentFS is implemented by backends that know each file's content
// digests without reading it (a published snapshot's manifest). Content
// with a known digest is immutable: the store caches it by digest and
// never revalidates it, and the skills extension takes its digest (of
// the raw bytes: FileInfo.SHA256) from here instead of reading the file.
type ContentFS interface {
	fs.FS
	// ContentSHA256 returns the lower-case hex SHA-256 of the named file's
	// bytes and, when served differs from them (text decoded to UTF-8),
	// the SHA-256 and size of that text. The store uses raw alone: every
	// surface digests a file's bytes as stored.
	ContentSHA256(name string) (raw, served string, servedSize int64, ok bool)
}
