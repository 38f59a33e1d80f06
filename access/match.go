package access

import (
	"path"
	"strings"
)

// nameSet is a compiled set of name patterns: the pattern "*" alone (every
// name), literal names (a map lookup), literal prefixes ending in "*" (the
// common "finance-*"), and any other path.Match glob, tried in turn. All
// patterns were validated when the policy was parsed, so Match cannot
// fail here.
type nameSet struct {
	all      bool
	names    map[string]struct{}
	prefixes []string
	globs    []string
}

// hasMeta reports whether pattern uses any of path.Match's special
// characters.
func hasMeta(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// add puts pattern into the set.
func (m *nameSet) add(pattern string) {
	switch {
	case m.all:
	case pattern == "*":
		*m = nameSet{all: true}
	case !hasMeta(pattern):
		if m.names == nil {
			m.names = make(map[string]struct{})
		}
		m.names[pattern] = struct{}{}
	case strings.HasSuffix(pattern, "*") && !hasMeta(pattern[:len(pattern)-1]):
		m.prefixes = append(m.prefixes, pattern[:len(pattern)-1])
	default:
		m.globs = append(m.globs, pattern)
	}
}

// addSet puts every pattern of o into m.
func (m *nameSet) addSet(o *nameSet) {
	if o == nil {
		return
	}
	if o.all {
		m.add("*")
		return
	}
	for n := range o.names {
		m.add(n)
	}
	for _, p := range o.prefixes {
		m.add(p + "*")
	}
	for _, g := range o.globs {
		m.add(g)
	}
}

// empty reports whether the set matches no name.
func (m *nameSet) empty() bool {
	return m == nil || !m.all && len(m.names) == 0 && len(m.prefixes) == 0 && len(m.globs) == 0
}

// match reports whether name matches a pattern of the set. It is the hot
// path of filtering: "*" costs one branch, a literal one map lookup.
func (m *nameSet) match(name string) bool {
	if m == nil {
		return false
	}
	if m.all {
		return true
	}
	if _, ok := m.names[name]; ok {
		return true
	}
	for _, p := range m.prefixes {
		// As path.Match: the "*" does not cross a '/'.
		if strings.HasPrefix(name, p) && strings.IndexByte(name[len(p):], '/') < 0 {
			return true
		}
	}
	for _, g := range m.globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
