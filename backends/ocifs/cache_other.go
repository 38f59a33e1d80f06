//go:build !unix

package ocifs

// cacheOpenFlags: no flags beyond reading where O_NOFOLLOW and O_NONBLOCK
// are not offered; the size check after opening still applies.
const cacheOpenFlags = 0
