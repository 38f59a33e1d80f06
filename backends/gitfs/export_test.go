package gitfs

// ForgetTokenHost lets GIT_TOKEN be claimed by a host again, as in a new
// process.
func ForgetTokenHost() {
	tokenHost.Lock()
	tokenHost.host = ""
	tokenHost.Unlock()
}
