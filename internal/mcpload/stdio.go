package mcpload

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/internal/jsonl"
)

// Conn is an MCP conversation over newline-delimited stdio, normally with
// a server process it started. Requests are pipelined: Do is safe for
// concurrent use, and answers are matched to calls by id.
type Conn struct {
	cmd    *exec.Cmd // nil for NewConn
	in     io.WriteCloser
	wmu    sync.Mutex
	wbuf   []byte // guarded by wmu
	nextID atomic.Int64
	proto  string // as requested: it decides how requests are encoded
	info   Info
	calls  callCache

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

// Start launches command and opens the conversation at DefaultProtocol.
func Start(command string, args ...string) (*Conn, error) {
	return StartWith(Options{}, command, args...)
}

// StartWith launches command and opens the conversation as opts say.
func StartWith(opts Options, command string, args ...string) (*Conn, error) {
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
	return open(cmd, in, out, opts)
}

// NewConn opens a conversation with a server that reads w and writes r,
// such as an in-process one over pipes. Close closes w; the server should
// then end, closing r.
func NewConn(w io.WriteCloser, r io.Reader, opts Options) (*Conn, error) {
	return open(nil, w, r, opts)
}

func open(cmd *exec.Cmd, in io.WriteCloser, out io.Reader, opts Options) (*Conn, error) {
	c := &Conn{cmd: cmd, in: in, proto: opts.protocol(), pending: map[int64]chan reply{}, done: make(chan struct{})}
	r := bufio.NewReaderSize(out, 1<<20)
	info, _, err := handshake(in, r, c.proto)
	if err != nil {
		close(c.done)
		c.Close()
		return nil, err
	}
	c.info = info
	go c.readLoop(r)
	return c, nil
}

// handshake sends the opening request (and, for the handshake versions,
// notifications/initialized) and returns what the answer said and when it
// was read.
func handshake(w io.Writer, r *bufio.Reader, version string) (Info, time.Time, error) {
	if _, err := w.Write(append(openingRequest(version), '\n')); err != nil {
		return Info{}, time.Time{}, err
	}
	for {
		line, err := jsonl.Read(r, nil)
		at := time.Now()
		if len(line) == 0 {
			if err == nil || err == io.EOF {
				err = errors.New("the server closed stdout")
			}
			return Info{}, at, fmt.Errorf("waiting for the answer to the opening request: %w", err)
		}
		var head response
		if json.Unmarshal(line, &head) == nil && (head.Method != "" || string(head.ID) != "0") {
			continue // a notification or a server request
		}
		info, perr := parseOpening(version, line)
		if perr != nil {
			return Info{}, at, perr
		}
		if !isStateless(version) {
			if _, err := io.WriteString(w, initializedNotification+"\n"); err != nil {
				return Info{}, at, err
			}
		}
		return info, at, nil
	}
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

func (c *Conn) readLoop(r *bufio.Reader) {
	defer close(c.done)
	var m message
	for {
		err := readMessage(r, &m)
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
		id, ok := m.id()
		if !ok {
			continue // a notification or a server request
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

// readMessage scans one line of r into m.
func readMessage(r *bufio.Reader, m *message) error {
	m.reset()
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
		m.done()
		return nil
	}
}

// Info describes the conversation.
func (c *Conn) Info() Info { return c.info }

// Prepare encodes method with params for this connection.
func (c *Conn) Prepare(method string, params json.RawMessage) (*Request, error) {
	suffix, _, err := encode(c.proto, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return &Request{Method: method, owner: c, suffix: append(suffix, '\n')}, nil
}

// Do sends r with a new id and waits for the answer.
func (c *Conn) Do(r *Request) (int, error) {
	if r.owner != c {
		return 0, errors.New("mcpload: request prepared for another connection")
	}
	id := c.nextID.Add(1)
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return 0, c.readErr
	}
	c.pending[id] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	c.wbuf = append(c.wbuf[:0], reqPrefix...)
	c.wbuf = strconv.AppendInt(c.wbuf, id, 10)
	c.wbuf = append(c.wbuf, r.suffix...)
	_, err := c.in.Write(c.wbuf)
	c.wmu.Unlock()
	if err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
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

// Call sends tools/call with params (prepared on first use) and waits for
// the answer.
func (c *Conn) Call(params json.RawMessage) (int, error) { return c.calls.call(c, params) }

// Close ends the conversation and stops the server.
func (c *Conn) Close() error {
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	if c.cmd != nil {
		if c.cmd.Process != nil {
			c.cmd.Process.Kill()
		}
		c.cmd.Wait()
	}
	return nil
}

// Startup starts command, opens the conversation at DefaultProtocol and
// returns the time until the answer arrived; the server is then stopped.
func Startup(command string, args ...string) (time.Duration, error) {
	return StartupWith(Options{}, command, args...)
}

// StartupWith is Startup at opts.Protocol: the time to the answer to
// initialize, or to server/discover for 2026-07-28.
func StartupWith(opts Options, command string, args ...string) (time.Duration, error) {
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
	_, at, err := handshake(in, bufio.NewReader(out), opts.protocol())
	if err != nil {
		return 0, err
	}
	return at.Sub(start), nil
}
