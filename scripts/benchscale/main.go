// Command benchscale measures ctxd on a tree as an editor and a user see
// it: a daemon (`ctxd serve`) answering ctx/buildPrompt (first request,
// then warm p50/p95 over varied requests, peak RSS), optionally with
// several requests in flight at once, and fresh `ctxd prompt` processes
// (cold CLI). It prints one line of key=value numbers.
//
//	go build -o /tmp/ctxd ./cmd/ctxd
//	go run ./scripts/benchscale -bin /tmp/ctxd -root /work/data/stdlib-10k -n 20 -cold 5
//	go run ./scripts/benchscale -bin /tmp/ctxd -root REPO -clients 8 -n 400 -cold 0
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/procstat"
)

// requests vary the query so a warm request is not a repeat of the last.
var requests = benchreq.Stdlib

func main() {
	bin := flag.String("bin", "ctxd", "ctxd binary")
	root := flag.String("root", "", "workspace root")
	n := flag.Int("n", 20, "warm requests")
	clients := flag.Int("clients", 1, "requests in flight at once")
	cold := flag.Int("cold", 3, "cold CLI runs (0: none)")
	coldFresh := flag.Int("cold-fresh", 0, "cold CLI runs each with its own empty state directory, so no persisted index (0: none): the fresh process a warm request is compared with")
	method := flag.String("method", "ctx/buildPrompt", "JSON-RPC method of the warm requests")
	warmup := flag.Int("warmup", len(requests), "requests sent (one at a time, after the first) before the warm ones are timed: by default one of each distinct request, so per-request caches are warm")
	novel := flag.Bool("novel", false, "time requests the daemon has not seen (internal/benchreq.StdlibNovel, each once, at most n) instead of repeats of the warm-up's")
	settle := flag.Bool("settle", false, "after the warm-up, wait until the daemon's background analysis is done (ctx/status) before timing, and print how long that took from initialize (settle_s; na from a daemon without ctx/status)")
	split := flag.Bool("novel-split", false, "warm up on internal/benchreq.StdlibNovel too (after the -warmup requests) and time other requests it has not seen (benchreq.StdlibNovelB, each once, at most n): one daemon whose per-request caches hold other requests")
	all := flag.Bool("novel-all", false, "time every novel request (StdlibNovel then StdlibNovelB, each once, at most n): prepares a state directory for -novel-split")
	budget := flag.Int("budget", 0, "token_budget.total of each request (0: the daemon's default, model-relative since be73225; 8000 was the default before)")
	flag.Parse()
	if *root == "" {
		fmt.Fprintln(os.Stderr, "benchscale: -root is required")
		os.Exit(2)
	}
	timed := requests
	var warmNovel []string
	switch {
	case *all:
		timed = append(slices.Clip(benchreq.StdlibNovel), benchreq.StdlibNovelB...)
	case *split:
		warmNovel, timed = benchreq.StdlibNovel, benchreq.StdlibNovelB
	case *novel:
		timed = benchreq.StdlibNovel
	}
	if *novel || *split || *all {
		*n = min(*n, len(timed))
	}
	o := runOpts{n: *n, clients: *clients, cold: *cold, warmup: *warmup, method: *method, timed: timed, warmNovel: warmNovel, settle: *settle, budget: *budget, coldFresh: *coldFresh}
	if err := run(*bin, *root, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

// runOpts are run's parameters (the flags of the same names).
type runOpts struct {
	n, clients, cold, warmup int
	coldFresh                int
	method                   string
	timed, warmNovel         []string
	settle                   bool
	budget                   int
}

func run(bin, root string, o runOpts) error {
	n, clients, cold, warmup, method, timed := o.n, o.clients, o.cold, o.warmup, o.method, o.timed
	d, err := start(bin, root)
	if err != nil {
		return err
	}
	defer d.stop()
	tInit := time.Now()
	if _, err := d.call("initialize", map[string]any{"root": root}); err != nil {
		return err
	}
	// params is request i of list (the pack's parameters for ctx/pack).
	params := func(list []string, i int) map[string]any {
		if method == "ctx/pack" {
			// As `ctxd pack --output` and repomix -o: the pack goes to a file.
			return map[string]any{"format": "xml", "output": filepath.Join(os.TempDir(), "benchscale-pack.xml")}
		}
		p := map[string]any{"user_request": list[i%len(list)]}
		if o.budget > 0 {
			p["token_budget"] = map[string]any{"total": o.budget}
		}
		return p
	}
	t0 := time.Now()
	if _, err := d.call(method, params(requests, 0)); err != nil {
		return err
	}
	first := time.Since(t0)
	for i := 1; i < warmup; i++ {
		if _, err := d.call(method, params(requests, i)); err != nil {
			return err
		}
	}
	for i := range o.warmNovel {
		if _, err := d.call(method, params(o.warmNovel, i)); err != nil {
			return err
		}
	}
	settled := ""
	if o.settle {
		if settled, err = d.settle(tInit); err != nil {
			return err
		}
	}
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	next := make(chan int)
	var errMu sync.Mutex
	var firstErr error
	tw := time.Now()
	cpu0 := d.cpu()
	for range max(clients, 1) {
		wg.Go(func() {
			for i := range next {
				t := time.Now()
				if _, err := d.call(method, params(timed, i+1)); err != nil {
					errMu.Lock()
					firstErr = err
					errMu.Unlock()
				}
				lat[i] = time.Since(t)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	wall := time.Since(tw)
	cpu := d.cpu() - cpu0
	if firstErr != nil {
		return firstErr
	}
	rss := d.peakRSS()
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("root=%s method=%s first_s=%.3f warm_p50_ms=%.1f warm_p95_ms=%.1f warm_p99_ms=%.1f clients=%d req_per_s=%.1f peak_rss_mb=%d",
		root, method, first.Seconds(), ms(pct(0.50)), ms(pct(0.95)), ms(pct(0.99)), clients, float64(n)/wall.Seconds(), rss/1024)
	// CPU per warm request (the daemon's user+system time over the timed
	// requests, background work included): steadier than wall time on a
	// shared machine.
	fmt.Printf(" warm_cpu_ms=%.1f", ms(cpu)/float64(n))
	if o.settle {
		fmt.Print(" " + settled)
	}
	if cold > 0 {
		med, mcpu, err := coldRuns(bin, root, o.budget, cold, "")
		if err != nil {
			return err
		}
		fmt.Printf(" cold_cli_s=%.3f cold_over_warm=%.1f cold_cli_cpu_s=%.3f", med.Seconds(), float64(med)/float64(pct(0.5)), mcpu.Seconds())
	}
	if o.coldFresh > 0 {
		med, mcpu, err := coldRuns(bin, root, o.budget, o.coldFresh, "fresh")
		if err != nil {
			return err
		}
		fmt.Printf(" cold_fresh_s=%.3f cold_fresh_over_warm=%.1f cold_fresh_cpu_s=%.3f", med.Seconds(), float64(med)/float64(pct(0.5)), mcpu.Seconds())
	}
	fmt.Println()
	return nil
}

// coldRuns times runs `ctxd prompt` processes of the first request and
// returns the median wall and CPU time. With state "fresh" each process
// gets its own empty state directory (CTXD_STATE_DIR), so it starts with no
// persisted index, as on a machine that never ran ctxd on the tree;
// otherwise the processes share the environment's state directory.
func coldRuns(bin, root string, budget, runs int, state string) (wall, cpu time.Duration, err error) {
	var cs, ccpu []time.Duration
	for range runs {
		args := []string{"prompt", "--root", root}
		if budget > 0 {
			args = append(args, "--budget", strconv.Itoa(budget))
		}
		cmd := exec.Command(bin, append(args, requests[0])...)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		cmd.Env = env()
		var dir string
		if state == "fresh" {
			if dir, err = os.MkdirTemp("", "benchscale-fresh-*"); err != nil {
				return 0, 0, err
			}
			cmd.Env = append(cmd.Env, "CTXD_STATE_DIR="+dir)
		}
		t := time.Now()
		err = cmd.Run()
		elapsed := time.Since(t)
		if dir != "" {
			os.RemoveAll(dir)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("cold prompt: %v: %s", err, stderr.String())
		}
		cs = append(cs, elapsed)
		ccpu = append(ccpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(cs)
	slices.Sort(ccpu)
	return cs[len(cs)/2], ccpu[len(ccpu)/2], nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func env() []string {
	return append(os.Environ(), "CTXD_CONFIG=/nonexistent/ctxd-bench.toml")
}

type daemon struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	nextID  int
	pending map[int]chan json.RawMessage
}

func start(bin, root string) (*daemon, error) {
	cmd := exec.Command(bin, "serve")
	cmd.Dir = root
	cmd.Env = env()
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
	d := &daemon{cmd: cmd, in: in, pending: map[int]chan json.RawMessage{}}
	go d.read(bufio.NewReaderSize(out, 1<<20))
	return d, nil
}

func (d *daemon) stop() {
	d.call("shutdown", nil)
	body := `{"jsonrpc":"2.0","method":"exit"}`
	fmt.Fprintf(d.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	d.in.Close()
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

func (d *daemon) read(r *bufio.Reader) {
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID *int `json:"id"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			continue
		}
		d.mu.Lock()
		ch := d.pending[*msg.ID]
		delete(d.pending, *msg.ID)
		d.mu.Unlock()
		if ch != nil {
			ch <- body
		}
	}
}

func (d *daemon) call(method string, params any) (json.RawMessage, error) {
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	ch := make(chan json.RawMessage, 1)
	d.pending[id] = ch
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	_, err := fmt.Fprintf(d.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		var m struct {
			Error json.RawMessage `json:"error"`
		}
		json.Unmarshal(resp, &m)
		if len(m.Error) > 0 && string(m.Error) != "null" {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return resp, nil
	case <-time.After(5 * time.Minute):
		return nil, fmt.Errorf("%s: no answer in 5 minutes", method)
	}
}

// cpu reads the daemon's user+system CPU time so far from /proc (0 where
// there is none).
func (d *daemon) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command (in parentheses, which may hold spaces):
	// utime and stime are the 14th and 15th of the line, in clock ticks.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on
// Linux everywhere but in exotic builds).
const clockTicks = 100

// peakRSS reads the daemon's peak resident set (KiB) from /proc.
func (d *daemon) peakRSS() int { return procstat.KiB(strconv.Itoa(d.cmd.Process.Pid), "VmHWM") }

// settle polls ctx/status until the background analysis is done and
// returns "settle_s=S analysis_s=A" (S from t0, A as the daemon measured
// it), or "settle_s=na" from a daemon without ctx/status.
func (d *daemon) settle(t0 time.Time) (string, error) {
	for {
		res, err := d.call("ctx/status", nil)
		if err != nil {
			if strings.Contains(err.Error(), "method not found") || strings.Contains(err.Error(), "-32601") {
				return "settle_s=na", nil
			}
			return "", fmt.Errorf("status: %w", err)
		}
		var resp struct {
			Result struct {
				Analysis struct {
					Enabled         bool
					Analysed, Total int
					Done            bool
					TookMS          int64 `json:"took_ms"`
				}
			}
		}
		if err := json.Unmarshal(res, &resp); err != nil {
			return "", fmt.Errorf("status: %w", err)
		}
		st := resp.Result
		if st.Analysis.Done || !st.Analysis.Enabled {
			return fmt.Sprintf("settle_s=%.1f analysis_s=%.1f analysed=%d", time.Since(t0).Seconds(), float64(st.Analysis.TookMS)/1000, st.Analysis.Total), nil
		}
		if time.Since(t0) > time.Hour {
			return "", fmt.Errorf("background analysis not done after an hour (%d of %d)", st.Analysis.Analysed, st.Analysis.Total)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
