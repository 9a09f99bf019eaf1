package smart

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/internal/testutil"
)

// bigHistory is an agent history of n tool rounds (history's mix of file
// reads, failing tests, noisy builds and greps); salt makes every output
// unique, so a new salt tokenizes, hashes and stores everything again.
func bigHistory(n, salt int) []convo.Msg {
	msgs := history(n)
	for i := range msgs {
		if r := msgs[i].Result; r != nil {
			c := *r
			c.Text = fmt.Sprintf("run %d output %d\n", salt, i) + c.Text
			msgs[i].Result = &c
		}
	}
	return msgs
}

// BenchmarkOptimize rewrites a history of about 150k tokens (o200k_base;
// 130 tool rounds) for gpt-4o with a real artifact store on disk:
//
//   - warm: the same request again (an agent retrying): every analysis,
//     view and count comes from the caches, every artifact exists;
//
//   - next-turn: each run appends one tool round to the history, as an
//     agent loop does, so one new output is analysed and the one that
//     ages out of the recent zone is condensed and stored;
//
//   - cold: a history never seen before: everything is tokenized, hashed,
//     condensed and stored;
//
//   - cold-sync: cold with artifacts.Options.Sync, as the engine opens its
//     store: the call's records are fsynced (one fsync per pack) before
//     it returns.
//
//     go test -run '^$' -bench Optimize -benchtime 40x -count 5 ./compact/smart
func BenchmarkOptimize(b *testing.B) {
	const rounds = 130
	for _, f := range request.Formats {
		for _, mode := range []string{"warm", "next-turn", "cold", "cold-sync"} {
			b.Run(fmt.Sprintf("%s/%s", f, mode), func(b *testing.B) {
				store, err := artifacts.Open(b.TempDir(), artifacts.Options{Sync: mode == "cold-sync"})
				if err != nil {
					b.Fatal(err)
				}
				o := New(Options{Store: store})
				base := bigHistory(rounds, 0)
				body := convo.Body(f, "gpt-4o", base, nil)
				res, err := o.Optimize(b.Context(), body, Call{Session: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				rep := res.Report
				var tm testutil.Timer
				stored := 0 // artifact files created: the disk's share of the cost
				msgs := base
				salt := 0
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					switch mode {
					case "next-turn":
						b.StopTimer()
						more := bigHistory(1, len(msgs))
						msgs = append(msgs[:len(msgs)-1:len(msgs)-1], more[2:len(more)-1]...)
						msgs = append(msgs, base[len(base)-1])
						body = convo.Body(f, "gpt-4o", msgs, nil)
						b.StartTimer()
					case "cold", "cold-sync":
						b.StopTimer()
						salt++
						body = convo.Body(f, "gpt-4o", bigHistory(rounds, salt*1000+int(time.Now().UnixNano()%1000)), nil)
						b.StartTimer()
					}
					tm.Start()
					res, err := o.Optimize(b.Context(), body, Call{Session: "bench"})
					if err != nil {
						b.Fatal(err)
					}
					tm.Stop()
					stored += res.Report.ArtifactsStored
				}
				tm.Report(b)
				b.ReportMetric(float64(rep.EstimatedTokensBefore), "tokens-before")
				b.ReportMetric(float64(rep.EstimatedTokensAfter), "tokens-after")
				b.ReportMetric(float64(stored)/float64(b.N), "artifacts-stored/op")
			})
		}
	}
}
