// Package mcpload drives an MCP server over stdio (pipelined) or Streamable
// HTTP (one POST per call) with one request repeated under load, and
// measures calls per second, latency and time to the first answer.
//
// It is a measuring instrument, so it does as little as it can per call:
// a request is encoded once ([Caller.Prepare]) and each call only writes
// its id in front of the prepared bytes; a response is read once, and its
// "id" and error markers ("isError":true, "error":{) are found without
// decoding the result (inside JSON strings every quote is escaped, so the
// unescaped key sequences can only be real keys). Any server that speaks
// MCP over newline-delimited stdio or Streamable HTTP can be measured, so
// two servers can be compared through the same client in one run.
//
// Two protocol eras are spoken, chosen by [Options.Protocol]:
//
//   - up to 2025-11-25: the initialize request and notifications/initialized
//     open the conversation, and on HTTP every later request carries
//     MCP-Protocol-Version and, when the server issued one, Mcp-Session-Id;
//   - 2026-07-28 (as mark3labs/mcp-go v1.2.1 implements it): there is no
//     handshake and no session. server/discover checks that the server
//     serves the version, and every request carries the protocol version,
//     client info and client capabilities in params._meta; on HTTP it also
//     carries MCP-Protocol-Version, Mcp-Method, Mcp-Name (the tool or prompt
//     name, or the resource URI) and the Mcp-Param-* headers a tool's
//     x-mcp-header annotations ask for (SEP-2243).
package mcpload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Protocol versions.
const (
	// DefaultProtocol is the version used when Options.Protocol is empty:
	// the last one with the initialize handshake.
	DefaultProtocol = mcp.LATEST_LEGACY_PROTOCOL_VERSION // 2025-11-25
	// Stateless is the first version without the handshake or sessions.
	Stateless = mcp.ProtocolVersion20260728 // 2026-07-28
)

// Options configure a connection.
type Options struct {
	// Protocol is the MCP protocol version to speak (default
	// DefaultProtocol). Versions before 2026-07-28 open with initialize;
	// 2026-07-28 and later call server/discover and carry _meta on every
	// request.
	Protocol string
	// Header is added to every HTTP request (Authorization…); its values
	// replace the client's own for the same names. Not used on stdio.
	Header http.Header
}

func (o Options) protocol() string {
	if o.Protocol == "" {
		return DefaultProtocol
	}
	return o.Protocol
}

// Info describes an open connection.
type Info struct {
	// Protocol is the version in use: for the handshake versions the one
	// the server answered initialize with, otherwise the one requested
	// (server/discover listed it).
	Protocol string
	// Server is the server's name and version, from its initialize answer
	// or the _meta of its server/discover answer.
	Server mcp.Implementation
	// SessionID is the Mcp-Session-Id a stateful HTTP server issued.
	SessionID string
}

// Caller is a connection under load: stdio (*Conn) or HTTP (*HTTPConn).
type Caller interface {
	// Prepare encodes a request once, for this connection only.
	Prepare(method string, params json.RawMessage) (*Request, error)
	// Do sends a prepared request with a new id and waits for its answer,
	// returning its size in bytes. A JSON-RPC error, a tool result with
	// "isError":true or (on HTTP) a status other than 200 is an error.
	Do(*Request) (int, error)
	Info() Info
	Close() error
}

// Request is a request encoded once for one connection: every call writes
// reqPrefix, its id and suffix, nothing else.
type Request struct {
	Method string
	owner  any
	suffix []byte      // `,"method":…,"params":…}`
	header http.Header // HTTP only; read-only once prepared, shared by calls
}

var reqPrefix = []byte(`{"jsonrpc":"2.0","id":`)

// isStateless reports whether version has no handshake (2026-07-28 on).
func isStateless(version string) bool { return mcp.IsModernProtocol(version) }

var clientInfo = mcp.Implementation{Name: "mcpload", Version: "1"}

// requestMeta is the _meta every 2026-07-28 request carries.
func requestMeta(version string) []byte {
	b, err := json.Marshal(map[string]any{
		mcp.MetaKeyProtocolVersion:    version,
		mcp.MetaKeyClientInfo:         clientInfo,
		mcp.MetaKeyClientCapabilities: mcp.ClientCapabilities{},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// encode returns what follows the id in a request for method with params,
// as protocol version speaks it, and the params as sent. Params are
// compacted (a newline would end a stdio message); for 2026-07-28 they
// must be an object, absent or null, and get _meta.
func encode(version, method string, params json.RawMessage) (suffix, wire []byte, err error) {
	if method == "" {
		return nil, nil, errors.New("no method")
	}
	params = bytes.TrimSpace(params)
	if len(params) > 0 && string(params) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, params); err != nil {
			return nil, nil, fmt.Errorf("params: %w", err)
		}
		wire = buf.Bytes()
	}
	if isStateless(version) {
		if wire, err = withMeta(wire, requestMeta(version)); err != nil {
			return nil, nil, err
		}
	}
	m, _ := json.Marshal(method)
	suffix = append([]byte(`,"method":`), m...)
	if wire != nil {
		suffix = append(append(suffix, `,"params":`...), wire...)
	}
	return append(suffix, '}'), wire, nil
}

// withMeta adds meta's keys to params._meta; keys the params already set
// in their own _meta are kept (to send, say, a log level or other
// capabilities). Params without _meta keep their bytes, after a leading
// "_meta" member.
func withMeta(params, meta []byte) ([]byte, error) {
	if len(params) == 0 {
		return slices.Concat([]byte(`{"_meta":`), meta, []byte(`}`)), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, fmt.Errorf("params must be a JSON object to carry _meta: %w", err)
	}
	own, ok := fields["_meta"]
	if !ok {
		rest := params[1:] // compact: `}` or the first member
		sep := []byte(",")
		if rest[0] == '}' {
			sep = nil
		}
		return slices.Concat([]byte(`{"_meta":`), meta, sep, rest), nil
	}
	var theirs, ours map[string]json.RawMessage
	if err := json.Unmarshal(own, &theirs); err != nil || theirs == nil {
		return nil, fmt.Errorf("params._meta must be a JSON object")
	}
	if err := json.Unmarshal(meta, &ours); err != nil {
		return nil, err
	}
	for k, v := range ours {
		if _, set := theirs[k]; !set {
			theirs[k] = v
		}
	}
	var err error
	if fields["_meta"], err = json.Marshal(theirs); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// openingRequest is the first message: initialize, or server/discover for
// the stateless versions. Its id is 0; calls count from 1.
func openingRequest(version string) []byte {
	if isStateless(version) {
		suffix, _, _ := encode(version, string(mcp.MethodServerDiscover), nil)
		return slices.Concat(reqPrefix, []byte("0"), suffix)
	}
	v, _ := json.Marshal(version)
	return slices.Concat([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":`), v,
		[]byte(`,"capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}}`))
}

const initializedNotification = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// response is a whole decoded answer, for the few requests outside the
// load (the opening one, tools/list).
type response struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func (r *response) err(what string) error {
	if r.Error != nil {
		return fmt.Errorf("%s: error %d: %s %s", what, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if len(r.Result) == 0 {
		return fmt.Errorf("%s: answer without a result", what)
	}
	return nil
}

// parseOpening checks the answer to openingRequest.
func parseOpening(version string, msg []byte) (Info, error) {
	var resp response
	if err := json.Unmarshal(msg, &resp); err != nil {
		return Info{}, fmt.Errorf("answer to the opening request: %v: %q", err, clip(msg))
	}
	if !isStateless(version) {
		if err := resp.err("initialize"); err != nil {
			return Info{}, err
		}
		var res struct {
			ProtocolVersion string             `json:"protocolVersion"`
			ServerInfo      mcp.Implementation `json:"serverInfo"`
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil || res.ProtocolVersion == "" {
			return Info{}, fmt.Errorf("initialize: no protocolVersion in %q", clip(msg))
		}
		return Info{Protocol: res.ProtocolVersion, Server: res.ServerInfo}, nil
	}
	if err := resp.err("server/discover"); err != nil {
		return Info{}, fmt.Errorf("%w (a server without protocol %s may still speak %s: -protocol %[3]s)", err, version, DefaultProtocol)
	}
	var res struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return Info{}, fmt.Errorf("server/discover: %v: %q", err, clip(msg))
	}
	if !slices.Contains(res.SupportedVersions, version) {
		return Info{}, fmt.Errorf("server/discover: the server serves %q, not %s", res.SupportedVersions, version)
	}
	info := Info{Protocol: version}
	if raw := res.Meta[mcp.MetaKeyServerInfo]; raw != nil {
		json.Unmarshal(raw, &info.Server)
	}
	return info, nil
}

// callCache keeps the requests prepared by Call, by params.
type callCache struct {
	mu sync.RWMutex
	m  map[string]*Request
}

const maxCachedCalls = 64

func (k *callCache) call(c Caller, params json.RawMessage) (int, error) {
	k.mu.RLock()
	r := k.m[string(params)]
	k.mu.RUnlock()
	if r == nil {
		var err error
		if r, err = c.Prepare(string(mcp.MethodToolsCall), params); err != nil {
			return 0, err
		}
		k.mu.Lock()
		if k.m == nil {
			k.m = map[string]*Request{}
		}
		if len(k.m) < maxCachedCalls {
			k.m[string(params)] = r
		}
		k.mu.Unlock()
	}
	return c.Do(r)
}

var (
	idKey    = []byte(`"id":`)
	errorKey = []byte(`"isError":true`)
	rpcErr   = []byte(`"error":{`)
)

// message is what the reader keeps of one response: its size and its first
// and last bytes, where the id and the error markers are. The body is never
// copied nor searched: a JSON-RPC error is small, and an MCP tool result
// carries "isError" before or after its content, never inside it, so a
// large result costs the client one pass (finding its end), whatever its
// text says.
type message struct {
	head, tail []byte
	size       int
	isError    bool
}

const keep = 512

func (m *message) reset() {
	m.head, m.tail = m.head[:0], m.tail[:0]
	m.size, m.isError = 0, false
}

func (m *message) scan(chunk []byte) {
	m.size += len(chunk)
	if n := keep - len(m.head); n > 0 {
		m.head = append(m.head, chunk[:min(n, len(chunk))]...)
	}
	m.tail = append(m.tail, chunk[max(0, len(chunk)-keep):]...)
	if len(m.tail) > keep {
		m.tail = append(m.tail[:0], m.tail[len(m.tail)-keep:]...)
	}
}

// done settles the error flag once the whole message is read.
func (m *message) done() {
	m.isError = bytes.Contains(m.head, errorKey) || bytes.Contains(m.head, rpcErr) ||
		bytes.Contains(m.tail, errorKey) || bytes.Contains(m.tail, rpcErr)
}

// id returns the response's numeric id, from its first or last bytes.
func (m *message) id() (int64, bool) {
	if id, ok := findID(m.head); ok {
		return id, true
	}
	return findID(m.tail)
}

// findID returns the numeric id of a response line.
func findID(line []byte) (int64, bool) {
	i := bytes.Index(line, idKey)
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(line[i+len(idKey):], " ")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	id, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return id, err == nil
}

func clip(b []byte) string { return logtext.Clip(string(b), 300) }

// Stats summarize a load run.
type Stats struct {
	Calls       int
	Elapsed     time.Duration
	CallsPerSec float64
	MBPerSec    float64 // response bytes
	P50, P99    time.Duration
}

func (s Stats) String() string {
	return fmt.Sprintf("%8.0f calls/s  %7.1f MB/s  p50 %-9v p99 %-9v (%d calls in %v)",
		s.CallsPerSec, s.MBPerSec, s.P50.Round(time.Microsecond), s.P99.Round(time.Microsecond), s.Calls, s.Elapsed.Round(time.Millisecond))
}

// Run keeps inflight calls of req outstanding on c for d (after one
// warm-up call) and reports what it measured. The first failed call ends
// the run and is returned.
func Run(ctx context.Context, c Caller, req *Request, inflight int, d time.Duration) (Stats, error) {
	if _, err := c.Do(req); err != nil {
		return Stats{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu    sync.Mutex
		lat   []time.Duration
		bytes int64
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			var n int64
			for ctx.Err() == nil {
				t := time.Now()
				size, err := c.Do(req)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
					break
				}
				mine = append(mine, time.Since(t))
				n += int64(size)
			}
			mu.Lock()
			lat = append(lat, mine...)
			bytes += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if first != nil {
		return Stats{}, first
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	s := Stats{Calls: len(lat), Elapsed: elapsed}
	if len(lat) > 0 {
		s.CallsPerSec = float64(len(lat)) / elapsed.Seconds()
		s.MBPerSec = float64(bytes) / elapsed.Seconds() / 1e6
		s.P50 = lat[len(lat)/2]
		s.P99 = lat[len(lat)*99/100]
	}
	return s, nil
}
