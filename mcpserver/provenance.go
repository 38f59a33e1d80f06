package mcpserver

import (
	"encoding/json"
	"time"

	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// ProvenanceMetaKey is the _meta key under which every answer that serves
// a skill's content says where it comes from: its value is the skill's
// store.Provenance as JSON,
//
//	{"source": LABEL, "kind": KIND, "location": LOCATION,
//	 "revision": REVISION, "signer": {"fingerprint": …, "principal": …, "kind": …},
//	 "version": {"id": …, "digest": …, "created_by": …, "created": …, "signer": {…},
//	             "channel": …, "review": {"by": …, "time": …, "signer": {…}}}}
//
// with revision and signer left out when the source has none, and
// version (the skill's own, from a registry) when the source does not
// version skills one by one. The prefix
// is the reverse DNS name of skillstore.github.io, which MCP's rules for
// _meta keys allow (its second label is neither modelcontextprotocol nor
// mcp, which MCP reserves). It is set on each skills/list and skills/get
// entry, on each resources/read contents item, and in the result _meta
// of tools/call (get_skill, Skill, read_file_in_skill) and prompts/get:
// every answer that holds a skill's content or its manifest. Lists of
// many skills (resources/list, list_skills) and folder listings
// (resources/directory/read) carry none; nor does an answer a caller may
// not have (a hidden skill, a failure).
const ProvenanceMetaKey = "io.github.skillstore/provenance"

// appendProvenanceMember appends the _meta member `"KEY":{…}` for p.
func appendProvenanceMember(b []byte, p *store.Provenance) []byte {
	b = append(b, `"`+ProvenanceMetaKey+`":`...)
	return appendProvenance(b, p)
}

// appendProvenance appends p as encoding/json writes a store.Provenance,
// without HTML escaping, as every answer is written.
func appendProvenance(b []byte, p *store.Provenance) []byte {
	b = append(b, `{"source":`...)
	b = jsonstr.Append(b, p.Source)
	b = append(b, `,"kind":`...)
	b = jsonstr.Append(b, p.Kind)
	b = append(b, `,"location":`...)
	b = jsonstr.Append(b, p.Location)
	if p.Revision != "" {
		b = append(b, `,"revision":`...)
		b = jsonstr.Append(b, p.Revision)
	}
	b = appendSigner(b, p.Signer)
	if v := p.Version; v != nil {
		b = append(b, `,"version":{"id":`...)
		b = jsonstr.Append(b, v.ID)
		b = append(b, `,"digest":`...)
		b = jsonstr.Append(b, v.Digest)
		if v.CreatedBy != "" {
			b = append(b, `,"created_by":`...)
			b = jsonstr.Append(b, v.CreatedBy)
		}
		b = append(b, `,"created":"`...)
		b = v.Created.AppendFormat(b, time.RFC3339Nano) // as encoding/json writes a time.Time
		b = append(b, '"')
		b = appendSigner(b, v.Signer)
		if v.Channel != "" {
			b = append(b, `,"channel":`...)
			b = jsonstr.Append(b, v.Channel)
		}
		if rv := v.Review; rv != nil {
			b = append(b, `,"review":{"by":`...)
			b = jsonstr.Append(b, rv.By)
			b = append(b, `,"time":"`...)
			b = rv.Time.AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
			b = appendSigner(b, rv.Signer)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendSigner appends the member `,"signer":{…}`, or nothing for the
// zero Signer.
func appendSigner(b []byte, s store.Signer) []byte {
	if s == (store.Signer{}) {
		return b
	}
	b = append(b, `,"signer":{"fingerprint":`...)
	b = jsonstr.Append(b, s.Fingerprint)
	b = append(b, `,"principal":`...)
	b = jsonstr.Append(b, s.Principal)
	b = append(b, `,"kind":`...)
	b = jsonstr.Append(b, s.Kind)
	return append(b, '}')
}

// shownProvenance returns p as c's caller is shown it (remoteProvenance
// for a remote one).
func (s *Server) shownProvenance(c *call, p *store.Provenance) *store.Provenance {
	if !c.src.remote {
		return p
	}
	return s.remoteProvenance(p)
}

// remoteProvenance returns p as a remote caller (source.remote) is shown
// it: the location as tools.RemoteLocation gives it, a source on the
// server's disk named by its label, never its path. The value is made
// once per provenance and kept, so that provenanceMeta keeps its _meta
// object too; it must not be modified.
func (s *Server) remoteProvenance(p *store.Provenance) *store.Provenance {
	if p == nil {
		return p
	}
	loc := tools.RemoteLocation(p.Source, p.Location)
	if loc == p.Location {
		return p
	}
	if q, ok := s.remoteProvs.Get(p); ok {
		return q
	}
	q := *p
	q.Location = loc
	s.remoteProvs.Add(p, &q, int64(len(q.Source)+len(q.Kind)+len(q.Revision))+256)
	return &q
}

// addProvenance adds p's member to the _meta of c's result; nil adds
// nothing.
func (c *call) addProvenance(p *store.Provenance) {
	if p == nil {
		return
	}
	if len(c.meta) > 0 {
		c.meta = append(c.meta, ',')
	}
	c.meta = appendProvenanceMember(c.meta, p)
}

// provenanceMeta is a whole _meta object holding p's member, or nil when
// p is nil. The store shares one provenance value among the skills of a
// snapshot, so the object is made once per value and kept (a few hundred
// bytes per source and snapshot, within 1 MiB); it must not be modified.
func (s *Server) provenanceMeta(p *store.Provenance) json.RawMessage {
	if p == nil {
		return nil
	}
	if m, ok := s.provenances.Get(p); ok {
		return m
	}
	m := append(appendProvenanceMember([]byte{'{'}, p), '}')
	s.provenances.Add(p, m, int64(len(m))+64)
	return m
}
