package query_test

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/query"
)

// BenchmarkParse reads a short request, requests of every kind mixed
// (testdata/parse) at 1, 16 and 256 KB, and a CI log of 256 KB, the
// longest a request may be (engine.MaxUserRequestBytes); "before" is
// the implementation Parse replaced (refParse), measured beside it.
// cpu-ns/op is the process's CPU time per parse (GC included), which a
// loaded machine changes less than the wall time.
func BenchmarkParse(b *testing.B) {
	line := "--- FAIL: TestServe (0.01s)\n    server_test.go:41: got 500, want 200 from config/.npmrc at /home/ci/build/pkg/server.go:88\n"
	for _, tc := range []struct{ name, request string }{
		{"short", "why is the database password wrong in .env: fix Server.Shutdown"},
		{"mixed1k", mixed(b, 1<<10)},
		{"mixed16k", mixed(b, 16<<10)},
		{"mixed256k", mixed(b, 256<<10)},
		{"log256k", strings.Repeat(line, (256<<10)/len(line))},
	} {
		for _, impl := range []struct {
			name  string
			parse func(string) *query.Query
		}{{"now", query.Parse}, {"before", refParse}} {
			b.Run(tc.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					impl.parse(tc.request)
				}
				if cpu := cpuTime() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
