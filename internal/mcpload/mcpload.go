// Package mcpload drives an MCP server over stdio with pipelined tools/call
// requests and measures calls per second, latency and time to initialize.
//
// It is a measuring instrument, so it does as little as it can per response:
// it reads one line per message and finds the response's "id" and "isError"
// without decoding the result (inside JSON strings every quote is escaped,
// so the unescaped key sequences can only be real keys). Any server that
// speaks MCP over newline-delimited stdio can be measured, so two servers
// can be compared through the same client in one run.
package mcpload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/internal/jsonl"
)

// Conn is a running server and the pipes to it. Call is safe for concurrent use.
type Conn struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	wmu    sync.Mutex
	nextID atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan reply
	readErr error
	done    chan struct{}
}

type reply struct {
	size    int
	isError bool
	line    []byte // kept only for errors
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}}` + "\n"

// Start launches command and completes the MCP handshake.
func Start(command string, args ...string) (*Conn, error) {
	cmd := exec.Command(command, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	growPipe(out)
	c := &Conn{cmd: cmd, in: in, pending: map[int64]chan reply{}, done: make(chan struct{})}
	r := bufio.NewReaderSize(out, 1<<20)
	if _, err := io.WriteString(in, initialize); err != nil {
		c.Close()
		return nil, err
	}
	line, err := jsonl.Read(r, nil)
	if err != nil || !bytes.Contains(line, []byte(`"serverInfo"`)) {
		c.Close()
		return nil, fmt.Errorf("initialize: %q: %v", clip(line), err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	go c.readLoop(r)
	return c, nil
}

// growPipe enlarges the server's stdout pipe to 1 MiB where the kernel
// allows (Linux F_SETPIPE_SZ), so a large response crosses it in a few
// copies; it applies equally to every server measured.
func growPipe(r io.Reader) {
	if f, ok := r.(interface{ Fd() uintptr }); ok {
		const fSetPipeSz = 1031
		syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSetPipeSz, 1<<20)
	}
}

var (
	idKey    = []byte(`"id":`)
	errorKey = []byte(`"isError":true`)
	rpcError = []byte(`"error":{`)
)

func (c *Conn) readLoop(r *bufio.Reader) {
	defer close(c.done)
	var m message
	for {
		err := m.read(r)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for _, ch := range c.pending {
				close(ch)
			}
			c.pending = map[int64]chan reply{}
			c.mu.Unlock()
			return
		}
		id, ok := findID(m.head)
		if !ok {
			if id, ok = findID(m.tail); !ok {
				continue // a notification or a server request
			}
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch == nil {
			continue
		}
		rep := reply{size: m.size, isError: m.isError}
		if rep.isError {
			rep.line = append([]byte(nil), m.head...)
		}
		ch <- rep
	}
}

// message is what the reader keeps of one response: its size, its first
// and last bytes (where the id is) and whether it reports an error. The
// body is scanned where it lies in the read buffer, never copied.
type message struct {
	head, tail, carry []byte
	size              int
	isError           bool
}

const keep = 256

func (m *message) read(r *bufio.Reader) error {
	m.head, m.tail, m.carry = m.head[:0], m.tail[:0], m.carry[:0]
	m.size, m.isError = 0, false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			m.scan(chunk)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return err
		}
		return nil
	}
}

func (m *message) scan(chunk []byte) {
	m.size += len(chunk)
	if n := keep - len(m.head); n > 0 {
		m.head = append(m.head, chunk[:min(n, len(chunk))]...)
	}
	if !m.isError {
		// Markers may straddle chunks: check the seam with the carried tail.
		seam := append(m.carry, chunk[:min(len(chunk), len(errorKey))]...)
		m.isError = bytes.Contains(chunk, errorKey) || bytes.Contains(chunk, rpcError) ||
			bytes.Contains(seam, errorKey) || bytes.Contains(seam, rpcError)
	}
	m.carry = append(m.carry[:0], chunk[max(0, len(chunk)-len(errorKey)):]...)
	m.tail = append(m.tail, chunk[max(0, len(chunk)-keep):]...)
	if len(m.tail) > keep {
		m.tail = append(m.tail[:0], m.tail[len(m.tail)-keep:]...)
	}
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

// Call sends tools/call with params and waits for the response, returning
// its size in bytes. A tool error or JSON-RPC error is an error.
func (c *Conn) Call(params json.RawMessage) (int, error) {
	id := c.nextID.Add(1)
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return 0, c.readErr
	}
	c.pending[id] = ch
	c.mu.Unlock()
	msg := make([]byte, 0, 64+len(params))
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"method":"tools/call","params":`...)
	msg = append(msg, params...)
	msg = append(msg, "}\n"...)
	c.wmu.Lock()
	_, err := c.in.Write(msg)
	c.wmu.Unlock()
	if err != nil {
		return 0, err
	}
	rep, ok := <-ch
	if !ok {
		return 0, errors.New("server closed the connection")
	}
	if rep.isError {
		return rep.size, fmt.Errorf("error response: %s", rep.line)
	}
	return rep.size, nil
}

// Close stops the server.
func (c *Conn) Close() error {
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
	c.cmd.Wait()
	return nil
}

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

// Caller sends one tools/call and returns the response size.
type Caller interface {
	Call(params json.RawMessage) (int, error)
}

// Run keeps inflight calls outstanding for d (after one warm-up call) and
// reports what it measured.
func Run(ctx context.Context, c Caller, params json.RawMessage, inflight int, d time.Duration) (Stats, error) {
	if _, err := c.Call(params); err != nil {
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
				size, err := c.Call(params)
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

// Startup starts command, sends initialize and returns the time until the
// response arrived; the server is then stopped.
func Startup(command string, args ...string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(command, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	io.WriteString(in, initialize)
	line, err := jsonl.Read(bufio.NewReader(out), nil)
	elapsed := time.Since(start)
	if err != nil || !bytes.Contains(line, []byte(`"serverInfo"`)) {
		return 0, fmt.Errorf("initialize: %q: %v", clip(line), err)
	}
	return elapsed, nil
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// HTTPConn sends tools/call requests to a Streamable HTTP endpoint, one
// POST each over kept-alive connections, and reads each response with the
// same in-place scan as Conn.
type HTTPConn struct {
	url    string
	header http.Header
	client *http.Client
	nextID atomic.Int64
}

// DialHTTP returns a caller for the MCP endpoint url. header is added to
// every request (Authorization, MCP-Protocol-Version…).
func DialHTTP(url string, header http.Header) *HTTPConn {
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}
	return &HTTPConn{url: url, header: header, client: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// Call posts tools/call with params and reads the whole response.
func (h *HTTPConn) Call(params json.RawMessage) (int, error) {
	id := h.nextID.Add(1)
	body := make([]byte, 0, 64+len(params))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, `,"method":"tools/call","params":`...)
	body = append(body, params...)
	body = append(body, '}')
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = h.header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var m message
	r := bufio.NewReaderSize(resp.Body, 1<<20)
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			m.scan(chunk)
		}
		if err == bufio.ErrBufferFull || err == nil {
			continue
		}
		if err != io.EOF {
			return m.size, err
		}
		break
	}
	if resp.StatusCode != http.StatusOK || m.isError {
		return m.size, fmt.Errorf("error response (HTTP %d): %s", resp.StatusCode, m.head)
	}
	if rid, ok := findID(m.head); !ok || rid != id {
		if rid, ok = findID(m.tail); !ok || rid != id {
			return m.size, fmt.Errorf("response without id %d: %s", id, m.head)
		}
	}
	return m.size, nil
}
