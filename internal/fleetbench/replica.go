package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// replicaOptions are replica's flags.
type replicaOptions struct {
	skill     string        // get_skill's skill_name
	accessLog string        // versitygw's access log, or ""
	idle      time.Duration // idle time after the answers, or 0
	timeout   time.Duration // longest wait for one answer
	command   []string      // the stdio server to start
}

// answer is when a step was answered, counted from the process's start.
type answer struct {
	label string
	after time.Duration
}

// replicaResult is what runReplica measured.
type replicaResult struct {
	answers      []answer
	peakKiB      int64
	requests     ops // logged from the start to the last answer (with accessLog)
	idleRequests ops // logged while idle (with idle)
}

// step is one request of the sequence, and what a good answer holds.
type step struct {
	label, method, params string
	check                 func(result json.RawMessage) error
}

// protocolVersion is the version the client asks for: the one the
// command's tests start stdio sessions with.
const protocolVersion = "2025-11-25"

func steps(skill string) []step {
	name, _ := json.Marshal(skill)
	return []step{
		{"initialize", "initialize", `{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"fleetbench","version":"1"}}`, checkInitialize},
		{"list_skills", "tools/call", `{"name":"list_skills","arguments":{}}`, checkTool},
		{"get_skill", "tools/call", `{"name":"get_skill","arguments":{"skill_name":` + string(name) + `}}`, checkTool},
		{"skills_list", "skills/list", `{}`, checkSkillsList},
	}
}

func checkInitialize(res json.RawMessage) error {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(res, &r) != nil || r.ProtocolVersion == "" {
		return fmt.Errorf("no protocolVersion in %.200s", res)
	}
	return nil
}

func checkTool(res json.RawMessage) error {
	var r struct {
		IsError bool              `json:"isError"`
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError || len(r.Content) == 0 {
		return fmt.Errorf("the tool failed: %.300s", res)
	}
	return nil
}

func checkSkillsList(res json.RawMessage) error {
	var r struct {
		Skills []json.RawMessage `json:"skills"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Skills) == 0 {
		return fmt.Errorf("no skills in %.300s", res)
	}
	return nil
}

// runReplica starts o.command, sends the steps one after the other and
// times their answers from the start, then measures the process's peak
// memory and stops it.
func runReplica(o replicaOptions) (replicaResult, error) {
	var r replicaResult
	var offsets [3]int64 // the access log's size at the start, at the last answer, after the idle time
	if o.accessLog != "" {
		var err error
		if offsets[0], err = logSize(o.accessLog); err != nil {
			return r, err
		}
	}
	p, err := startServer(o.command)
	if err != nil {
		return r, err
	}
	defer p.stop()
	for i, st := range steps(o.skill) {
		if err := p.call(i+1, st, o.timeout); err != nil {
			return r, fmt.Errorf("%s: %w%s", st.label, err, p.stderr.tail())
		}
		r.answers = append(r.answers, answer{st.label, time.Since(p.started)})
		if st.method == "initialize" {
			if err := p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
				return r, err
			}
		}
	}
	if o.accessLog != "" {
		if offsets[1], err = logSize(o.accessLog); err != nil {
			return r, err
		}
		if o.idle > 0 {
			time.Sleep(o.idle) // the measurement: what an idle replica asks for in this time
			if offsets[2], err = logSize(o.accessLog); err != nil {
				return r, err
			}
			if r.idleRequests, err = countRange(o.accessLog, offsets[1], offsets[2]); err != nil {
				return r, err
			}
		}
		if r.requests, err = countRange(o.accessLog, offsets[0], offsets[1]); err != nil {
			return r, err
		}
	}
	if r.peakKiB, err = vmHWM(p.cmd.Process.Pid); err != nil {
		return r, err
	}
	return r, p.stop()
}

// server is a started stdio server.
type server struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	started time.Time
	answers chan response
	stderr  *tailBuffer
	once    sync.Once
	err     error
}

// response is one JSON-RPC response.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startServer starts command with stdin and stdout as its MCP stream; its
// responses go to the answers channel, closed when stdout ends.
func startServer(command []string) (*server, error) {
	p := &server{cmd: exec.Command(command[0], command[1:]...), answers: make(chan response, 16), stderr: &tailBuffer{max: 4096}}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(command[0]), bare(err))
	}
	go func() {
		defer close(p.answers)
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			var m response
			if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 {
				p.answers <- m
			}
			if err != nil {
				return
			}
		}
	}()
	return p, nil
}

func (p *server) send(msg string) error {
	_, err := io.WriteString(p.stdin, msg+"\n")
	return err
}

// call sends st as request id and waits for its answer, which must pass
// st.check.
func (p *server) call(id int, st step, timeout time.Duration) error {
	if err := p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, st.method, st.params)); err != nil {
		return fmt.Errorf("the server closed its input: %w", err)
	}
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-p.answers:
			switch {
			case !ok:
				return errors.New("the server closed its output")
			case string(m.ID) != strconv.Itoa(id):
				continue
			case m.Error != nil:
				return fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
			}
			return st.check(m.Result)
		case <-deadline:
			return fmt.Errorf("no answer within %v", timeout)
		}
	}
}

// stop ends the server: its stdin is closed and it gets SIGTERM, then
// SIGKILL if it has not exited within 10 s. It returns how it exited; a
// server that ends on SIGTERM (with status 0 or by the signal) did well.
func (p *server) stop() error {
	p.once.Do(func() {
		p.stdin.Close()
		p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
				p.err = fmt.Errorf("the server exited with %v%s", err, p.stderr.tail())
			}
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
			p.err = errors.New("the server did not stop within 10 s of SIGTERM")
		}
	})
	return p.err
}

// vmHWM returns the peak resident set of process pid, in KiB.
func vmHWM(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, bare(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

// tail returns what the server last wrote to stderr, as a suffix for an
// error message, or "".
func (b *tailBuffer) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := bytes.TrimSpace(b.buf); len(t) > 0 {
		return "\nthe server's stderr ends with:\n" + string(t)
	}
	return ""
}
