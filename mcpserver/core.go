package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// The protocol's own methods: the initialize handshake and what belongs to
// its sessions (legacy), and server/discover and subscriptions/listen
// (2026-07-28).

// capabilities is what the server declares in initialize and
// server/discover.
func capabilities() mcp.ServerCapabilities {
	var c mcp.ServerCapabilities
	c.Tools = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	c.Resources = &struct {
		Subscribe   bool `json:"subscribe,omitempty"`
		ListChanged bool `json:"listChanged,omitempty"`
	}{Subscribe: true, ListChanged: true}
	c.Prompts = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	c.Logging = &struct{}{}
	c.Completions = &struct{}{}
	c.Extensions = map[string]any{SkillsExtension: skillsCapability}
	return c
}

// initializeMethod answers the legacy handshake: the version both sides
// speak (the client's, if this server knows it and it predates 2026-07-28;
// else the latest that uses the handshake), what the server offers, and how
// to use it. The session then receives list_changed notifications.
func (s *Server) initializeMethod(c *call, b []byte) ([]byte, error) {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(c.params, &p); len(c.params) == 0 || err != nil || p.ProtocolVersion == nil {
		return b, invalidParams("Invalid params for initialize: params must be an object with protocolVersion (a string such as \"%s\"), capabilities and clientInfo", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	version := mcp.NegotiateLegacyVersion(*p.ProtocolVersion)
	if ss := c.src.sess; ss != nil {
		ss.mu.Lock()
		ss.version = version
		ss.mu.Unlock()
		ss.initialized()
	}
	return appendMembers(b, struct {
		ProtocolVersion string                 `json:"protocolVersion"`
		Capabilities    mcp.ServerCapabilities `json:"capabilities"`
		ServerInfo      mcp.Implementation     `json:"serverInfo"`
		Instructions    string                 `json:"instructions,omitempty"`
	}{version, capabilities(), s.impl, Instructions})
}

// discoverMethod answers server/discover (2026-07-28): the versions, the
// capabilities and the instructions a client needs instead of a handshake.
func (s *Server) discoverMethod(c *call, b []byte) ([]byte, error) {
	return appendMembers(b, struct {
		SupportedVersions []string               `json:"supportedVersions"`
		Capabilities      mcp.ServerCapabilities `json:"capabilities"`
		Instructions      string                 `json:"instructions,omitempty"`
	}{mcp.ValidProtocolVersions, capabilities(), Instructions})
}

func (s *Server) pingMethod(c *call, b []byte) ([]byte, error) { return b, nil }

// setLevelMethod accepts logging/setLevel for a valid level. The server
// sends no log notifications, so there is nothing to filter.
func (s *Server) setLevelMethod(c *call, b []byte) ([]byte, error) {
	level, err := c.str(c.p.Level, "level")
	if err != nil {
		return b, err
	}
	switch mcp.LoggingLevel(level) {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
		return b, nil
	}
	return b, invalidParams("invalid logging level '%s'", clipName(level))
}

// subscribeMethod and unsubscribeMethod answer resources/subscribe and
// resources/unsubscribe: the session is then notified (or no longer) when
// the resource changes. A server without sessions (stateless HTTP) accepts
// them and can notify no one.
func (s *Server) subscribeMethod(c *call, b []byte) ([]byte, error) {
	return s.subscription(c, b, true)
}
func (s *Server) unsubscribeMethod(c *call, b []byte) ([]byte, error) {
	return s.subscription(c, b, false)
}

func (s *Server) subscription(c *call, b []byte, on bool) ([]byte, error) {
	uri, err := c.str(c.p.URI, "uri")
	if err != nil {
		return b, err
	}
	if uri == "" {
		return b, invalidParams("uri is required")
	}
	if c.src.sess != nil {
		c.src.sess.subscribe(uri, on)
	}
	return b, nil
}

// listenMethod answers subscriptions/listen (2026-07-28): it acknowledges
// the notifications the client opted in to, sends them on the call's
// stream, each tagged with the request's id, until the client goes away,
// then ends with an empty result naming the stream.
func (s *Server) listenMethod(c *call, b []byte) ([]byte, error) {
	var want mcp.SubscriptionFilter
	if n := bytes.TrimSpace(c.p.Notifications); len(n) > 0 && string(n) != "null" {
		if err := json.Unmarshal(n, &want); err != nil {
			return b, invalidParams("Invalid params for subscriptions/listen: 'notifications' %s", err)
		}
	}
	if c.out == nil {
		return b, &rpcError{Code: codeInternal, Message: "subscriptions/listen needs a stream, which this transport cannot open"}
	}
	if want.ResourceSubscriptions != nil {
		want.ResourceSubscriptions = append([]string(nil), want.ResourceSubscriptions...)
	}
	ack, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", mcp.MethodNotificationSubscriptionsAcknowledged, map[string]any{
		"_meta":         map[string]json.RawMessage{mcp.MetaKeySubscriptionID: c.id},
		"notifications": want,
	}})
	if err != nil {
		return b, err
	}
	if want.IsEmpty() {
		c.out.send(append(ack, '\n'))
	} else {
		// Established before it is acknowledged, so that a change the
		// client makes once it reads the acknowledgement reaches it; what
		// is published meanwhile waits for the acknowledgement to go first.
		out := &gatedSink{out: c.out}
		out.mu.Lock()
		defer s.hub.listen(&listener{out: out, id: c.id, filter: want, who: s.listenerCaller(c)})()
		c.out.send(append(ack, '\n'))
		out.mu.Unlock()
		<-c.ctx.Done()
	}
	c.meta = fmt.Appendf(nil, `"%s":%s`, mcp.MetaKeySubscriptionID, c.id)
	return b, nil
}

// gatedSink forwards messages to out, one at a time, whenever its lock is
// free.
type gatedSink struct {
	mu  sync.Mutex
	out sink
}

func (g *gatedSink) send(msg []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.send(msg)
}
