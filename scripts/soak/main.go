// Command soak runs skillstore under a long, mixed HTTP load with its content
// cache under pressure, and checks that it stays healthy: every request
// answered without error, resident memory bounded by the cache budget plus
// a fixed margin, and goroutines back to their baseline once the clients
// have gone. scripts/soak.sh builds and runs it; figures go in BENCHMARKS.md.
//
//	go run ./scripts/soak -bin ./skillstore -requests 200000
//
// It writes a generated corpus (-skills folders whose files hold several
// times the cache budget), starts `skillstore serve --http 127.0.0.1:0`
// over it, and sends -requests requests from -c workers: half over a
// stateful 2025-11-25 session each, half as 2026-07-28 clients. The mix
// covers every tool and every skill resource method. It samples the
// server's RSS and goroutines from /metrics every second and prints them.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/internal/mcpload"
)

func main() {
	bin := flag.String("bin", "skillstore", "the skillstore binary")
	requests := flag.Int("requests", 200000, "requests to send in all")
	workers := flag.Int("c", 16, "requests in flight (half legacy sessions, half 2026-07-28 clients)")
	skills := flag.Int("skills", 400, "skills in the generated corpus")
	cacheBytes := flag.Int64("cache-bytes", 16<<20, "the server's content cache budget")
	margin := flag.Int64("margin", 320<<20, "resident memory allowed over the cache budget (the server's default soft memory limit is the budget plus 256 MiB)")
	flag.Parse()
	if err := run(*bin, *requests, *workers, *skills, *cacheBytes, *margin); err != nil {
		fmt.Fprintln(os.Stderr, "soak: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("soak: PASS")
}

// corpus writes n skills, each a SKILL.md and supporting files of 2 KB to
// 200 KB, and returns the folder and every skill's file paths.
func corpus(n int) (string, map[string][]string, int64, error) {
	dir, err := os.MkdirTemp("", "soak-skills-")
	if err != nil {
		return "", nil, 0, err
	}
	files := map[string][]string{}
	var total int64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		name := fmt.Sprintf("skill-%04d", i)
		doc := fmt.Sprintf("---\nname: %s\ndescription: Soak test skill %d, which reads references and scripts under load.\n---\n# %s\n\nRead references/guide.md first.\n", name, i, name)
		paths := map[string]string{"SKILL.md": doc}
		for j := range 2 + rng.IntN(4) {
			size := 2<<10 + rng.IntN(200<<10)
			p := fmt.Sprintf("references/part-%d.md", j)
			if j == 0 {
				p = "references/guide.md"
			}
			paths[p] = strings.Repeat(fmt.Sprintf("line %d of %s in %s\n", j, p, name), size/40+1)
		}
		paths["scripts/run.sh"] = "#!/bin/sh\necho " + name + "\n"
		for p, text := range paths {
			full := filepath.Join(dir, name, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return "", nil, 0, err
			}
			if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
				return "", nil, 0, err
			}
			total += int64(len(text))
			files[name] = append(files[name], p)
		}
	}
	return dir, files, total, nil
}

// kind is one kind of request in the mix, with its weight.
type kind struct {
	name   string
	weight int
	params func(rng *rand.Rand) (method string, params string)
	era    era
}

// era limits a kind of request to the protocol versions that have it.
type era int

const (
	anyEra     era = iota
	legacyOnly     // before 2026-07-28: ping was removed then
	modernOnly     // 2026-07-28: server/discover
)

func mix(files map[string][]string, names []string) []kind {
	pick := func(rng *rand.Rand) string { return names[rng.IntN(len(names))] }
	file := func(rng *rand.Rand) (string, string) {
		n := pick(rng)
		fs := files[n]
		return n, fs[rng.IntN(len(fs))]
	}
	return []kind{
		{"tools/call read_file_in_skill", 30, func(rng *rand.Rand) (string, string) {
			n, p := file(rng)
			return "tools/call", fmt.Sprintf(`{"name":"read_file_in_skill","arguments":{"skill_name":%q,"file_path":%q}}`, n, p)
		}, anyEra},
		{"resources/read", 25, func(rng *rand.Rand) (string, string) {
			n, p := file(rng)
			return "resources/read", fmt.Sprintf(`{"uri":"skill://%s/%s"}`, n, p)
		}, anyEra},
		{"tools/call get_skill", 10, func(rng *rand.Rand) (string, string) {
			return "tools/call", fmt.Sprintf(`{"name":"get_skill","arguments":{"skill_name":%q}}`, pick(rng))
		}, anyEra},
		{"tools/call Skill", 10, func(rng *rand.Rand) (string, string) {
			return "tools/call", fmt.Sprintf(`{"name":"Skill","arguments":{"skill_name":%q}}`, pick(rng))
		}, anyEra},
		{"tools/call list_skills", 2, func(*rand.Rand) (string, string) {
			return "tools/call", `{"name":"list_skills","arguments":{}}`
		}, anyEra},
		{"skills/get", 5, func(rng *rand.Rand) (string, string) {
			return "skills/get", fmt.Sprintf(`{"uri":"skill://%s/SKILL.md"}`, pick(rng))
		}, anyEra},
		{"skills/list", 1, func(*rand.Rand) (string, string) { return "skills/list", `{}` }, anyEra},
		{"resources/directory/read", 5, func(rng *rand.Rand) (string, string) {
			return "resources/directory/read", fmt.Sprintf(`{"uri":"skill://%s/references"}`, pick(rng))
		}, anyEra},
		{"prompts/get", 4, func(rng *rand.Rand) (string, string) {
			return "prompts/get", fmt.Sprintf(`{"name":%q}`, pick(rng))
		}, anyEra},
		{"tools/list", 3, func(*rand.Rand) (string, string) { return "tools/list", `{}` }, anyEra},
		{"resources/list", 1, func(*rand.Rand) (string, string) { return "resources/list", `{}` }, anyEra},
		{"ping", 4, func(*rand.Rand) (string, string) { return "ping", `{}` }, legacyOnly},
		{"server/discover", 1, func(*rand.Rand) (string, string) { return "server/discover", `{}` }, modernOnly},
	}
}

// sample is one reading of the server's /metrics.
type sample struct {
	at         time.Duration
	rss, heap  int64
	goroutines int64
	cacheBytes int64
	done       int64
}

func readMetrics(base string) (sample, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	var s sample
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "process_resident_memory_bytes":
			s.rss = int64(v)
		case "go_memstats_heap_alloc_bytes":
			s.heap = int64(v)
		case "go_goroutines":
			s.goroutines = int64(v)
		case "skillstore_cache_bytes":
			s.cacheBytes = int64(v)
		}
	}
	if s.rss == 0 {
		return s, errors.New("/metrics gave no process_resident_memory_bytes")
	}
	return s, sc.Err()
}

func run(bin string, requests, workers, nSkills int, cacheBytes, margin int64) error {
	dir, files, total, err := corpus(nSkills)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	fmt.Printf("corpus: %d skills, %.1f MiB in files; cache budget %.1f MiB\n", nSkills, float64(total)/(1<<20), float64(cacheBytes)/(1<<20))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := startServer(ctx, bin, dir, cacheBytes)
	if err != nil {
		return err
	}
	defer srv.kill()
	kinds := mix(files, names)
	if err := warmUp(srv.url, kinds); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	baseline, err := readMetrics(srv.base)
	if err != nil {
		return err
	}
	fmt.Printf("baseline after warm-up: RSS %.1f MiB, %d goroutines\n", float64(baseline.rss)/(1<<20), baseline.goroutines)

	start := time.Now()
	l := startLoad(srv.url, kinds, requests, workers)
	samples, err := sampleUntilDone(srv.base, l, start)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	after, err := settle(srv.base, baseline)
	if err != nil {
		return err
	}
	if err := verdict(l, requests, elapsed, baseline, peakOf(samples), after, cacheBytes, margin); err != nil {
		return err
	}
	return srv.stop()
}

// server is a running `skillstore serve --http`.
type server struct {
	cmd       *exec.Cmd
	logDone   chan struct{} // stderr reached its end: the server has exited
	url, base string        // its /mcp endpoint, and its root
}

// startServer starts bin over the skills in dir and waits for its URL.
// The caller calls kill when done.
func startServer(ctx context.Context, bin, dir string, cacheBytes int64) (*server, error) {
	cmd := exec.CommandContext(ctx, bin, "serve", "--http", "127.0.0.1:0", "--source", dir, "--cache-bytes", strconv.FormatInt(cacheBytes, 10), "--refresh", "0", "--max-file-size", "1000000")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &server{cmd: cmd, logDone: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		defer close(srv.logDone)
		re := regexp.MustCompile(`url=(http://\S+/mcp)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
			if strings.Contains(sc.Text(), "level=ERROR") {
				fmt.Fprintln(os.Stderr, "server:", sc.Text())
			}
		}
	}()
	select {
	case srv.url = <-urlc:
	case <-time.After(30 * time.Second):
		srv.kill()
		return nil, errors.New("the server did not start")
	}
	srv.base = strings.TrimSuffix(srv.url, "/mcp")
	return srv, nil
}

// kill interrupts the server and waits for it to exit.
func (s *server) kill() {
	s.cmd.Process.Signal(os.Interrupt)
	<-s.logDone
	s.cmd.Wait()
}

// stop interrupts the server and checks that it stops cleanly.
func (s *server) stop() error {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.logDone:
	case <-time.After(15 * time.Second):
		return errors.New("the server did not stop within 15s of SIGINT")
	}
	if err := s.cmd.Wait(); err != nil {
		return fmt.Errorf("server exit: %w", err)
	}
	return nil
}

// inEra reports whether k is a request of protocol proto.
func (k kind) inEra(proto string) bool {
	modern := proto == mcpload.Stateless
	return !(k.era == legacyOnly && modern || k.era == modernOnly && !modern)
}

// warmUp sends each kind of request once from one client of each era,
// so the baseline includes what the server starts once (its session
// sweeper, the skills-extension check), not per client.
func warmUp(url string, kinds []kind) error {
	for _, proto := range []string{"2025-11-25", mcpload.Stateless} {
		c, err := mcpload.DialHTTP(url, mcpload.Options{Protocol: proto})
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		for _, k := range kinds {
			if !k.inEra(proto) {
				continue
			}
			method, params := k.params(rand.New(rand.NewPCG(3, 4)))
			req, err := c.Prepare(method, json.RawMessage(params))
			if err == nil {
				_, err = c.Do(req)
			}
			if err != nil {
				return fmt.Errorf("warm-up %s: %w", k.name, err)
			}
		}
		c.Close()
	}
	return nil
}

// loadRun is the load the workers send: how much is done, and what failed.
type loadRun struct {
	done     atomic.Int64
	finished chan struct{} // every worker has returned

	errMu    sync.Mutex
	errs     map[string]int // by kind of request ("dial" for a client that could not connect)
	firstErr error          // the first three errors of each kind
}

// startLoad starts workers clients (half legacy sessions, half
// 2026-07-28 clients) sending requests requests in all, picked from
// kinds by weight.
func startLoad(url string, kinds []kind, requests, workers int) *loadRun {
	l := &loadRun{finished: make(chan struct{}), errs: map[string]int{}}
	weights := 0
	for _, k := range kinds {
		weights += k.weight
	}
	var sent atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { l.worker(url, kinds, weights, w, &sent, int64(requests)) })
	}
	go func() { wg.Wait(); close(l.finished) }()
	return l
}

// worker is client w: it sends requests until sent reaches requests.
func (l *loadRun) worker(url string, kinds []kind, weights, w int, sent *atomic.Int64, requests int64) {
	proto := "2025-11-25"
	if w%2 == 1 {
		proto = mcpload.Stateless
	}
	c, err := mcpload.DialHTTP(url, mcpload.Options{Protocol: proto})
	if err != nil {
		l.errMu.Lock()
		l.errs["dial"]++
		l.firstErr = errors.Join(l.firstErr, err)
		l.errMu.Unlock()
		return
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	for sent.Add(1) <= requests {
		r := rng.IntN(weights)
		k := kinds[0]
		for _, k = range kinds {
			if r < k.weight {
				break
			}
			r -= k.weight
		}
		if !k.inEra(proto) {
			k = kinds[0]
		}
		method, params := k.params(rng)
		req, err := c.Prepare(method, json.RawMessage(params))
		if err == nil {
			_, err = c.Do(req)
		}
		l.done.Add(1)
		if err != nil {
			l.errMu.Lock()
			if l.errs[k.name]++; l.errs[k.name] <= 3 {
				l.firstErr = errors.Join(l.firstErr, fmt.Errorf("%s %s (%s): %w", method, params, proto, err))
			}
			l.errMu.Unlock()
		}
	}
}

// sampleUntilDone reads the server's metrics every second until the load
// is done, printing every fifth sample and the last.
func sampleUntilDone(base string, l *loadRun, start time.Time) ([]sample, error) {
	var samples []sample
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	fmt.Println("   time   requests    RSS MiB   heap MiB  cache MiB  goroutines")
	for running := true; running; {
		select {
		case <-l.finished:
			running = false
		case <-tick.C:
		}
		s, err := readMetrics(base)
		if err != nil {
			return nil, err
		}
		s.at, s.done = time.Since(start), l.done.Load()
		samples = append(samples, s)
		if len(samples)%5 == 1 || !running {
			fmt.Printf("%6.0fs %10d %10.1f %10.1f %10.1f %11d\n", s.at.Seconds(), s.done, float64(s.rss)/(1<<20), float64(s.heap)/(1<<20), float64(s.cacheBytes)/(1<<20), s.goroutines)
		}
	}
	return samples, nil
}

// settle waits, up to 15 s, for the server's goroutines to return to the
// baseline now that the clients have gone, and returns its last sample.
func settle(base string, baseline sample) (sample, error) {
	for deadline := time.Now().Add(15 * time.Second); ; {
		after, err := readMetrics(base)
		if err != nil {
			return sample{}, err
		}
		if after.goroutines <= baseline.goroutines+2 || time.Now().After(deadline) {
			return after, nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// peakOf is the largest reading of each figure among samples.
func peakOf(samples []sample) sample {
	var peak sample
	for _, s := range samples {
		peak.rss = max(peak.rss, s.rss)
		peak.heap = max(peak.heap, s.heap)
		peak.goroutines = max(peak.goroutines, s.goroutines)
		peak.cacheBytes = max(peak.cacheBytes, s.cacheBytes)
	}
	return peak
}

// verdict prints the run's figures and fails it if a request failed or
// was not sent, the peak RSS is over the budget plus margin, or
// goroutines did not return to the baseline.
func verdict(l *loadRun, requests int, elapsed time.Duration, baseline, peak, after sample, cacheBytes, margin int64) error {
	nErr := 0
	for _, n := range l.errs {
		nErr += n
	}
	done := l.done.Load()
	fmt.Printf("\n%d requests in %.1fs (%.0f/s), %d errors %v\n", done, elapsed.Seconds(), float64(done)/elapsed.Seconds(), nErr, l.errs)
	fmt.Printf("RSS: baseline %.1f MiB, peak %.1f MiB, after %.1f MiB (limit: cache budget %.1f + margin %.1f MiB)\n",
		mib(baseline.rss), mib(peak.rss), mib(after.rss), mib(cacheBytes), mib(margin))
	fmt.Printf("heap: peak %.1f MiB; cache: peak %.1f MiB\n", mib(peak.heap), mib(peak.cacheBytes))
	fmt.Printf("goroutines: baseline %d, peak %d, after %d\n", baseline.goroutines, peak.goroutines, after.goroutines)

	var fails []error
	if nErr > 0 {
		fails = append(fails, fmt.Errorf("%d requests failed: %w", nErr, l.firstErr))
	}
	if done < int64(requests) {
		fails = append(fails, fmt.Errorf("only %d of %d requests were sent", done, requests))
	}
	if peak.rss > cacheBytes+margin {
		fails = append(fails, fmt.Errorf("peak RSS %.1f MiB is over the cache budget plus margin", mib(peak.rss)))
	}
	if after.goroutines > baseline.goroutines+2 {
		fails = append(fails, fmt.Errorf("%d goroutines remain; the baseline was %d", after.goroutines, baseline.goroutines))
	}
	return errors.Join(fails...)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
