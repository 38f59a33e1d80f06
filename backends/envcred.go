package backends

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/store"
)

// EnvCredential decides which hosts a credential the environment gives
// goes to: the variable Secret holds it, the variable Hosts lists the
// hosts it is for (comma-separated). While Hosts is unset, it goes to one
// host only, the first a source asks about in the process; a second host
// is refused with Err rather than guessed at, so a credential never
// reaches a host it was not meant for. It is safe for concurrent use.
type EnvCredential struct {
	Secret, Hosts string // the variables' names
	// Sources and Meant complete the refusal: "… and Sources are on A
	// and on B; set Hosts to Meant".
	Sources, Meant string
	Err            error // the refusal's sentinel, wrapped

	mu      sync.Mutex
	claimed string // the host that took the credential while Hosts is unset
}

// For reports whether the environment's credential, if set, goes to host.
func (e *EnvCredential) For(host string) (bool, error) {
	if os.Getenv(e.Secret) == "" {
		return false, nil
	}
	if hosts := os.Getenv(e.Hosts); hosts != "" {
		return slices.ContainsFunc(strings.Split(hosts, ","), func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), host) }), nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.claimed == "" {
		e.claimed = host
	}
	if !strings.EqualFold(e.claimed, host) {
		return false, fmt.Errorf("%w: %s is set, %s is not, and %s are on %s and on %s; set %s to %s", e.Err, e.Secret, e.Hosts, e.Sources, store.Echo(e.claimed), store.Echo(host), e.Hosts, e.Meant)
	}
	return true, nil
}

// Forget lets a host claim the credential again, as in a new process.
func (e *EnvCredential) Forget() {
	e.mu.Lock()
	e.claimed = ""
	e.mu.Unlock()
}
