package access

import "strconv"

// WriteScope is the OAuth scope (or static token scope) a principal's
// token must grant for any write: MayWrite refuses a principal without
// it, whatever the write rules say.
const WriteScope = "skills:write"

// WriteOp is a kind of write to the registry. The zero WriteOp is no
// operation, and MayWrite refuses it.
type WriteOp uint8

// The write operations a write rule may allow ("ops:" in the file).
const (
	WriteCreate  WriteOp = iota + 1 // create a skill, with its first version
	WriteVersion                    // add a version to an existing skill
	WriteDelete                     // delete a skill or one of its versions
)

// writeOpNames are the ops' names in the policy file, by WriteOp.
var writeOpNames = [...]string{WriteCreate: "create", WriteVersion: "version", WriteDelete: "delete"}

// String returns the op's name in the policy file: "create", "version"
// or "delete".
func (op WriteOp) String() string {
	if op > 0 && int(op) < len(writeOpNames) {
		return writeOpNames[op]
	}
	return "WriteOp(" + strconv.Itoa(int(op)) + ")"
}

// writeRule is one entry of the file's "writes:" list.
type writeRule struct {
	selectors
	skills   []string
	ops      uint8   // bit 1<<op per allowed WriteOp
	need     uint8   // selector kinds the rule has
	skillSet nameSet // compiled skills
}

// Reasons MayWrite gives for a refusal. The wording is for people (audit
// lines, error messages) and may change; callers branch on HasScope and
// Filter.Allows, not on these.
const (
	reasonNoCaller  = "no authenticated caller"
	reasonNoScope   = "the token lacks the " + WriteScope + " scope"
	reasonNoWrites  = "the policy has no write rules"
	reasonNoRule    = "no write rule grants it"
	reasonBadOp     = "unknown write operation"
	reasonNoPolicy  = "no access policy (writes need write rules)"
	reasonEmptyName = "no skill name"
)

// MayWrite reports whether principal pr may perform op on the skill
// named skill of the registry whose source label is source, and why:
// "rule policy.yaml:31" (the first write rule allowing it) or the reason
// for a refusal. A write is allowed only when all of these hold:
//
//   - the policy exists and has write rules (a nil Policy, or one without
//     "writes:", refuses every write, whatever its default);
//   - pr is not nil: a transport that authenticated nobody cannot write
//     (a nil principal sees everything, but writes nothing);
//   - pr's token grants WriteScope. A principal without scopes (a static
//     token listing none, the anonymous principal of a server without
//     authentication) is refused: the scope must be explicit;
//   - a write rule matches pr (its selectors as a read rule's), lists op
//     in its ops and matches skill with one of its skill globs;
//   - pr may read the skill (For(pr).Allows(source, skill)). A write to a
//     skill pr may not see is refused with the same reason as one no
//     write rule grants, so the refusal reveals nothing of the read rules
//     (the API answers 404 for a hidden skill before it asks).
//
// A refusal's reason never names another principal's rule. MayWrite
// does one pass over the write rules; writes are rare, so nothing is
// cached.
func (p *Policy) MayWrite(pr *Principal, op WriteOp, source, skill string) (ok bool, reason string) {
	switch {
	case p == nil:
		return false, reasonNoPolicy
	case pr == nil:
		return false, reasonNoCaller
	case !pr.HasScope(WriteScope):
		return false, reasonNoScope
	case op == 0 || int(op) >= len(writeOpNames):
		return false, reasonBadOp
	case skill == "":
		return false, reasonEmptyName
	case len(p.writes) == 0:
		return false, reasonNoWrites
	}
	var hitBuf [64]uint8
	var hit []uint8
	if n := len(p.writes); n <= len(hitBuf) {
		hit = hitBuf[:n]
	} else {
		hit = make([]uint8, n)
	}
	p.writeSel.mark(pr, hit)
	for i := range p.writes {
		w := &p.writes[i]
		if hit[i]&w.need != w.need || w.ops&(1<<op) == 0 || !w.skillSet.match(skill) {
			continue
		}
		if !p.For(pr).Allows(source, skill) {
			break
		}
		return true, "rule " + p.file + ":" + strconv.Itoa(w.line)
	}
	return false, reasonNoRule
}

// AllowsWrites reports whether the policy has write rules: without them
// MayWrite refuses every write, so a server may say so at start.
func (p *Policy) AllowsWrites() bool { return p != nil && len(p.writes) > 0 }
