package query

import (
	"strings"
	"testing"
)

// BenchmarkParse reads a short request and a CI log of 256 KB, the
// longest a request may be (engine.MaxUserRequestBytes).
func BenchmarkParse(b *testing.B) {
	line := "--- FAIL: TestServe (0.01s)\n    server_test.go:41: got 500, want 200 from config/.npmrc at /home/ci/build/pkg/server.go:88\n"
	for _, tc := range []struct{ name, request string }{
		{"short", "why is the database password wrong in .env: fix Server.Shutdown"},
		{"log256k", strings.Repeat(line, (256<<10)/len(line))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(tc.request)
			}
		})
	}
}
