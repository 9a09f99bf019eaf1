package prune

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/testutil"
)

// history200 is a 200-message agent history of about 150k tokens
// (o200k_base): a system prompt, a request, 98 tool calls with results of
// about 1,500 tokens each, an assistant note and a final request. salt
// makes every text unique, so a run with a new salt tokenizes everything.
func history200(f request.Format, salt int) []byte {
	rng := rand.New(rand.NewPCG(200, 150))
	c := conv{sys("You are a careful coding agent working in a Go repository."), user(fmt.Sprintf("Fix the flaky test in the scheduler (run %d).", salt))}
	for i := range 98 {
		id := fmt.Sprintf("call_%03d", i)
		name := toolNames[i%len(toolNames)]
		out := fmt.Sprintf("run %d output %d\n", salt, i) + toolOutput(rng, 4850, i%11 == 0)
		c = append(c, asst("", call{id: id, name: name, args: fmt.Sprintf(`{"path":"internal/sched/file%02d.go","command":"go test ./internal/sched/..."}`, i)}), tool(id, name, out))
	}
	c = append(c, asst("I'll now rerun the suite."), user("Go ahead and tell me what fails."))
	return render(f, "gpt-4o", c)
}

// coldSalt numbers the histories of cold runs.
var coldSalt atomic.Int64

// benchCases are the variants of each benchmark: "warm" reuses the pruner
// (counts come from the cache by message hash), "cold" tokenizes a new
// history each run, "tight" is warm with a 16k budget, which evicts
// units and builds the summary.
var benchCases = []struct {
	name   string
	cold   bool
	budget int
}{{"warm", false, 0}, {"cold", true, 0}, {"tight", false, 16000}}

func benchRun(b *testing.B, f request.Format, cold bool, budget int, run func(ctx context.Context, p *Pruner, body []byte) (*Report, error)) {
	p, err := New(Options{Model: "gpt-4o", Budget: budget})
	if err != nil {
		b.Fatal(err)
	}
	body := history200(f, 0)
	rep, err := run(b.Context(), p, body)
	if err != nil {
		b.Fatal(err)
	}
	// Anthropic carries the system prompt as a top-level field.
	if n := len(rep.Messages); n != 200 && !(f == request.FormatAnthropic && n == 199) {
		b.Fatalf("history has %d messages", n)
	}
	var tm testutil.Timer
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if cold {
			b.StopTimer()
			// A salt never used before in this process: the token
			// counter's own cache outlives a benchmark.
			body = history200(f, int(coldSalt.Add(1)))
			b.StartTimer()
		}
		tm.Start()
		if _, err := run(b.Context(), p, body); err != nil {
			b.Fatal(err)
		}
		tm.Stop()
	}
	tm.Report(b)
	// After the loop: ResetTimer drops metrics reported before it.
	b.ReportMetric(float64(rep.TokensBefore), "tokens-before")
	b.ReportMetric(float64(rep.TokensAfter), "tokens-after")
}

// BenchmarkCompress200 compresses the 200-message, 150k-token history for
// gpt-4o (budget 111,616 = 128k window - 16,384 output; see benchCases).
//
//	go test -run '^$' -bench 'Compress200|PruneForRetry' -count 5 ./compact/prune
func BenchmarkCompress200(b *testing.B) {
	compress := func(ctx context.Context, p *Pruner, body []byte) (*Report, error) {
		_, rep, err := p.Compress(ctx, body)
		return rep, err
	}
	for _, f := range request.Formats {
		for _, bc := range benchCases {
			b.Run(fmt.Sprintf("%s/%s", f, bc.name), func(b *testing.B) { benchRun(b, f, bc.cold, bc.budget, compress) })
		}
	}
}

// BenchmarkPruneForRetry prunes the same history for a retry after a
// failing test run.
func BenchmarkPruneForRetry(b *testing.B) {
	errText := "--- FAIL: TestScheduler (0.31s)\n    sched_test.go:88: job 7 ran twice\npanic: runtime error: index out of range [3] with length 3\n"
	retry := func(ctx context.Context, p *Pruner, body []byte) (*Report, error) {
		_, rep, err := p.ForRetry(ctx, body, errText)
		return rep, err
	}
	for _, f := range request.Formats {
		for _, bc := range benchCases {
			b.Run(fmt.Sprintf("%s/%s", f, bc.name), func(b *testing.B) { benchRun(b, f, bc.cold, bc.budget, retry) })
		}
	}
}

// manySmall is a chat of n short messages (a system prompt, then user and
// assistant turns of a dozen tokens each).
func manySmall(n int) []byte {
	c := conv{sys("You are helpful.")}
	for i := range n {
		if i%2 == 0 {
			c = append(c, user(fmt.Sprintf("message number %d about the build", i)))
		} else {
			c = append(c, asst(fmt.Sprintf("message number %d about the build", i)))
		}
	}
	return render(request.FormatChat, "gpt-4o", c)
}

// BenchmarkCompressManySmall: the pruner over n small messages, four
// times over the window: time must grow linearly with n (issue 28: 30,000
// messages within 2 s).
func BenchmarkCompressManySmall(b *testing.B) {
	for _, n := range []int{3000, 12000, 30000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p, err := New(Options{Model: "gpt-4o", Budget: n * 3})
			if err != nil {
				b.Fatal(err)
			}
			body := manySmall(n)
			var cpu []time.Duration
			for b.Loop() {
				c0 := testutil.CPUTime()
				if _, _, err := p.Compress(b.Context(), body); err != nil {
					b.Fatal(err)
				}
				cpu = append(cpu, testutil.CPUTime()-c0)
			}
			testutil.ReportPercentiles(b, cpu, "cpu-")
		})
	}
}

// TestManySmallLinear: skipping the fit checks that cannot succeed gives
// the output of checking after every eviction (hashEverySummary), on
// histories of many small messages at budgets that evict into the
// summary; and the pruner's CPU time over them grows linearly: 8 times
// the messages cost well under 20 times the time (quadratic: 64).
func TestManySmallLinear(t *testing.T) {
	for _, n := range []int{301, 800} {
		for _, div := range []int{2, 3, 5} {
			body := manySmall(n)
			opts := Options{Model: "gpt-4o", Budget: n * 12 / div}
			want, wantRep, wantErr := compressHashing(t, body, opts, true)
			got, gotRep, gotErr := compressHashing(t, body, opts, false)
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || !slices.Equal(got, want) || fmt.Sprint(gotRep) != fmt.Sprint(wantRep) {
				t.Fatalf("n %d budget %d: the output differs from checking every eviction (%v / %v)", n, opts.Budget, wantErr, gotErr)
			}
			if wantErr == nil && len(gotRep.Inserted) == 0 {
				t.Errorf("n %d budget %d: nothing evicted into a summary", n, opts.Budget)
			}
		}
	}
	cost := func(n int) time.Duration {
		p, err := New(Options{Model: "gpt-4o", Budget: n * 3})
		if err != nil {
			t.Fatal(err)
		}
		body := manySmall(n)
		c0 := testutil.CPUTime()
		if _, _, err := p.Compress(t.Context(), body); err != nil {
			t.Fatal(err)
		}
		return testutil.CPUTime() - c0
	}
	small, large := cost(2000), cost(16000)
	t.Logf("cpu: 2,000 messages %v, 16,000 messages %v", small, large)
	if large > 20*small+time.Second {
		t.Errorf("16,000 messages cost %v, 2,000 cost %v: not linear", large, small)
	}
}
