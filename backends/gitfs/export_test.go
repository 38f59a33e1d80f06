package gitfs

// ForgetTokenHost lets GIT_TOKEN be claimed by a host again, as in a new
// process.
func ForgetTokenHost() {
	tokenHost.Lock()
	tokenHost.host = ""
	tokenHost.Unlock()
}

// CacheFolder is the repository's folder under its cache folder.
func CacheFolder(r *Repo) string { return r.cacheDir }
