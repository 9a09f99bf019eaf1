package prune

import (
	"math/rand/v2"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
)

// go test -fuzz=FuzzCompress ./compact/prune
func FuzzCompress(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, fm := range request.Formats {
		f.Add(render(fm, "gpt-4o", genConv(rng, 6, 300)), 400, 1, 100, uint8(3))
		f.Add(render(fm, "claude-sonnet-4.5", unmatched()), 50, 2, 10, uint8(3))
		f.Add(render(fm, "gpt-5", outOfOrder()), 10000, 0, 0, uint8(3))
		f.Add(render(fm, "gpt-4o", duplicateIDs()), 300, 1, -1, uint8(0))
	}
	f.Add([]byte(`{"input":"only"}`), 1, 0, 0, uint8(3))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"r"}]}`), 5, 1, 5, uint8(3))
	f.Add([]byte(`{"input":[{"type":"reasoning","id":"r"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"role":"user","content":"x"}]}`), 5, 1, 5, uint8(3))
	f.Fuzz(func(t *testing.T, body []byte, budget, window, maxTool int, format uint8) {
		opts := Options{Budget: max(budget, 0) % 200000, WindowSize: max(window, 0) % 20, MaxToolOutput: maxTool % 5000}
		if int(format) < len(request.Formats) {
			opts.Format = request.Formats[format] // forced, else detected
		}
		out, rep, err := Compress(t.Context(), body, opts)
		if err != nil {
			return
		}
		checkOutputDetect(t, body, out, rep, opts, false)
	})
}
