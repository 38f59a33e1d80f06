package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/skillstore/skillstore/internal/jsonl"
	"github.com/skillstore/skillstore/tools"
)

// ServeStdio serves MCP over in and out (normally stdin and stdout) until
// ctx ends or in is closed. Logs must go elsewhere: out carries the protocol.
//
// A small dispatcher reads each message first. It answers the Skills
// extension's methods (skills/list, skills/get), which mcp-go does not
// know, and tools/call for skillstore's own tools — the hot path, encoded
// in one pass — when the session negotiated a protocol version whose
// result shape it writes (2024-11-05 to 2025-11-25) and the request
// carries nothing it does not handle (_meta, task augmentation). Every
// other message goes to mcp-go unchanged. TestDispatcherMatchesMCPGo
// checks that both answer tools/call alike.
//
// When ctx ends, ServeStdio returns after answers in flight are written;
// the goroutine reading in stays blocked until in is closed.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slogAdapter(s.log))
	listenErr := make(chan error, 1)
	go func() { listenErr <- stdio.Listen(ctx, pr, w) }()

	d := &dispatcher{srv: s, w: w, sem: make(chan struct{}, 64)}
	go d.readLoop(ctx, bufio.NewReaderSize(in, 64<<10), pw)
	err := <-listenErr
	d.wg.Wait()
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// inlineBudget is how long an answer may run on the reading goroutine
// before reading moves to a new one.
const inlineBudget = time.Millisecond

// readLoop reads messages, answering the dispatcher's own and passing the
// rest to mcp-go through pw. When nothing else is in flight it answers on
// this goroutine, which saves a hand-off (most of a cached call's latency);
// if that answer takes longer than inlineBudget (a slow backend read), a
// timer starts a new readLoop on the same reader and this one ends after
// its answer, so reading never waits on a slow call.
func (d *dispatcher) readLoop(ctx context.Context, r *bufio.Reader, pw *io.PipeWriter) {
	for {
		line, err := jsonl.Read(r, nil)
		if len(bytes.TrimSpace(line)) > 0 {
			job := d.try(ctx, line)
			switch {
			case job == nil:
				if _, werr := pw.Write(line); werr != nil {
					return // mcp-go has stopped reading: the session is over
				}
			case len(d.sem) == 1 && err == nil:
				handoff := time.AfterFunc(inlineBudget, func() { d.readLoop(ctx, r, pw) })
				job()
				if !handoff.Stop() {
					return // another readLoop owns the reader now
				}
			default:
				go job()
			}
		}
		if err != nil {
			d.wg.Wait() // let answers in flight reach out before mcp-go stops
			pw.Close()
			return
		}
	}
}

// lockedWriter writes whole messages one at a time; mcp-go and the
// dispatcher share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// dispatcher answers, in front of mcp-go, tools/call for skillstore's
// tools and the Skills extension's methods.
type dispatcher struct {
	srv     *Server
	w       io.Writer
	enabled atomic.Bool // a legacy protocol version was negotiated
	sem     chan struct{}
	wg      sync.WaitGroup
}

// fastVersions are the protocol versions whose tools/call result is
// {content, structuredContent, isError} with no version-specific fields.
var fastVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// request is the part of a JSON-RPC request the dispatcher looks at.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name            string          `json:"name"`
		Arguments       json.RawMessage `json:"arguments"`
		URI             string          `json:"uri"`
		Cursor          string          `json:"cursor"`
		Meta            json.RawMessage `json:"_meta"`
		Task            json.RawMessage `json:"task"`
		ProtocolVersion string          `json:"protocolVersion"`
	} `json:"params"`
}

var (
	markToolsCall  = []byte(`"tools/call"`)
	markSkills     = []byte(`"skills/`)
	markInitialize = []byte(`"initialize"`)
)

// try returns the job that answers line if it is a request the dispatcher
// handles (the job holds a slot of d.sem), or nil.
func (d *dispatcher) try(ctx context.Context, line []byte) func() {
	if bytes.Contains(line, markInitialize) {
		var req request
		if json.Unmarshal(line, &req) == nil && req.Method == "initialize" {
			d.enabled.Store(fastVersions[req.Params.ProtocolVersion])
			return nil
		}
	}
	req, ok := d.parseRequest(line)
	if !ok || req.Method == "tools/call" && !d.enabled.Load() {
		return nil
	}
	d.wg.Add(1)
	d.sem <- struct{}{}
	return func() {
		defer d.wg.Done()
		defer func() { <-d.sem }()
		buf := d.answer(ctx, req)
		d.w.Write(buf)
		putBuffer(buf)
	}
}

// parseRequest decodes msg if it is a request the dispatcher answers: a
// single tools/call for one of skillstore's tools that carries nothing the
// dispatcher leaves to mcp-go (_meta, task augmentation, a null id), or a
// Skills extension method, which mcp-go does not know.
func (d *dispatcher) parseRequest(msg []byte) (*request, bool) {
	if !bytes.Contains(msg, markToolsCall) && !bytes.Contains(msg, markSkills) {
		return nil, false
	}
	var req request
	if json.Unmarshal(msg, &req) != nil || req.JSONRPC != "2.0" || len(req.ID) == 0 || string(req.ID) == "null" {
		return nil, false
	}
	switch {
	case isSkillsMethod(req.Method):
		return &req, true
	case req.Method == "tools/call":
		return &req, len(req.Params.Meta) == 0 && len(req.Params.Task) == 0 && isOurTool(req.Params.Name)
	}
	return nil, false
}

func isOurTool(name string) bool {
	for _, n := range tools.Names {
		if n == name {
			return true
		}
	}
	return false
}

// answer runs the tool and encodes its response, turning a panic into an
// error result as recoverTool does.
func (d *dispatcher) answer(ctx context.Context, req *request) (buf []byte) {
	defer func() {
		if r := recover(); r != nil {
			d.srv.log.Error("panic in tool handler", "tool", req.Params.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			buf = appendToolResponse(getBuffer(), req.ID, toolPanicResult(req.Params.Name), nil)
		}
	}()
	switch req.Method {
	case "skills/list":
		res, err := d.srv.listSkills(ctx, req.Params.Cursor)
		return appendRPC(getBuffer(), req.ID, res, err)
	case "skills/get":
		res, err := d.srv.getSkill(ctx, req.Params.URI)
		return appendRPC(getBuffer(), req.ID, res, err)
	}
	args := req.Params.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	res := d.srv.runTool(ctx, req.Params.Name, args)
	return appendToolResponse(getBuffer(), req.ID, res, d.srv.memo)
}

func toolPanicResult(name string) tools.Result {
	return tools.Result{Display: "Internal error in tool '" + name + "'; the server logged the details. Try again, or report it to the operator.", IsError: true}
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

func putBuffer(b []byte) {
	if cap(b) <= 4<<20 { // do not pin huge buffers
		buffers.Put(&b)
	}
}
