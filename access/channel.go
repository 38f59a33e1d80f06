package access

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/channel"
)

// MaxChannel bounds the length of a channel's name.
const MaxChannel = channel.Max

// ChannelSep joins a source's label and a channel's name in the label of
// the source that serves the channel: "registry@canary" (ChannelLabel).
const ChannelSep = "@"

// CheckChannel reports whether name is a channel's name: 1 to MaxChannel
// lowercase ASCII letters, digits and hyphens (the rule the registry
// shares, internal/channel).
func CheckChannel(name string) error { return channel.Check(name) }

// ChannelLabel is the label of the source that serves channel of the
// source labelled base: "BASE@CHANNEL".
func ChannelLabel(base, channel string) string { return base + ChannelSep + channel }

// SplitChannel splits a source label "BASE@CHANNEL" (ChannelLabel) into
// its base label and channel; ok is false for a label of no channel (no
// "@", or what follows the last one is no channel name).
func SplitChannel(label string) (base, channel string, ok bool) {
	i := strings.LastIndex(label, ChannelSep)
	if i < 0 || CheckChannel(label[i+1:]) != nil {
		return label, "", false
	}
	return label[:i], label[i+1:], true
}

// channelRule is one entry of the file's "channels:" list: the channel
// the callers it selects get.
type channelRule struct {
	selectors
	channel string
	need    uint8 // selector kinds the rule has
}

var channelKeys = []string{"groups", "subjects", "scopes", "channel"}

// channelRules reads the "channels:" list. It may be left out (every
// caller gets the default), but not given empty.
func (ps *parser) channelRules(n *yaml.Node) []channelRule {
	return list(ps, n, "channels", "channel rules", "channels: empty list (leave channels out: every caller gets the default)", ps.channelRule)
}

func (ps *parser) channelRule(n *yaml.Node) (channelRule, bool) {
	f, sel, ok := ps.ruleHead(n, "channel rule", channelKeys)
	r := channelRule{selectors: sel}
	if !ok {
		return r, false
	}
	c := f["channel"]
	if c == nil {
		ps.errorf(n.Line, `channel rule has no "channel" (write channel: stable, say)`)
		return r, false
	}
	name, ok := ps.scalar("channel", c)
	if !ok {
		return r, false
	}
	if err := CheckChannel(name); err != nil {
		ps.errorf(c.Line, "channel: %q: %v", name, err)
		return r, false
	}
	r.channel = name
	return r, true
}

// Channel returns the channel principal pr gets: that of the first
// "channels:" rule matching it (selectors as a read rule's; a rule with
// none matches every caller, a nil principal included, which no other
// rule matches), or "" when none does (the default: each skill's own
// served version). A nil Policy gives "".
func (p *Policy) Channel(pr *Principal) string {
	if p == nil || len(p.channels) == 0 {
		return ""
	}
	var hitBuf [64]uint8
	var hit []uint8
	if n := len(p.channels); n <= len(hitBuf) {
		hit = hitBuf[:n]
	} else {
		hit = make([]uint8, n)
	}
	if pr != nil {
		p.channelSel.mark(pr, hit)
	}
	for i := range p.channels {
		if r := &p.channels[i]; hit[i]&r.need == r.need {
			return r.channel
		}
	}
	return ""
}

// Channels returns the names of the channels the "channels:" rules give,
// each once, in the order the file first names them: a server makes a
// source per channel (ChannelLabel), ordered before its base source.
func (p *Policy) Channels() []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, r := range p.channels {
		if !slices.Contains(out, r.channel) {
			out = append(out, r.channel)
		}
	}
	return out
}
