package gitfs

import "time"

// ForgetTokenHost lets GIT_TOKEN be claimed by a host again, as in a new
// process.
func ForgetTokenHost() {
	tokenHost.Lock()
	tokenHost.host = ""
	tokenHost.Unlock()
}

// CacheFolder is the repository's folder under its cache folder.
func CacheFolder(r *Repo) string { return r.cacheDir }

// SetPace makes r's fetches keep a short pace: start within grace, then
// minRate bytes a second.
func SetPace(r *Repo, grace time.Duration, minRate int64) {
	r.pace.Grace, r.pace.MinRate = grace, minRate
}
