package smart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// nlFile is a file of n lines as `nl -ba` prints it, the line at
// critical (1-based) an error line a view keeps.
func nlFile(name string, n, critical int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("    total = compute_%s_%d(items, rate=%d)  # step %d of the %s module", name, i, i, i, name)
		if i == critical {
			line = "# FAILED tests/test_cart.py::test_total - AssertionError: assert 90 == 100"
		}
		fmt.Fprintf(&sb, "%6d\t%s\n", i, line)
	}
	return sb.String()
}

// staleRounds is a session of 24 outputs: short listings, then at 8 a
// read of shop/cart.py lines 1-120, at 9 a read of shop/tax.py, at 10 an
// edit of shop/tax.py (never read again), at 11 the whole of
// shop/cart.py read again; at 12 and 14 the same lines of shop/order.py,
// between two masking steps.
func staleRounds() []convo.Msg {
	return bashRounds("The cart total is wrong; fix it.", 24, func(i int) (string, string) {
		switch i {
		case 8:
			return "nl -ba shop/cart.py | sed -n '1,120p'", nlFile("cart", 120, 60)
		case 9:
			return "nl -ba shop/tax.py", nlFile("tax", 120, 0)
		case 10:
			return "sed -i 's/rate=1)/rate=2)/' shop/tax.py", ""
		case 11:
			return "nl -ba shop/cart.py", nlFile("cart", 130, 60)
		case 12, 14:
			// Read again between two steps: masked at the second.
			return "nl -ba shop/order.py | sed -n '1,90p'", nlFile("order", 90, 0)
		}
		return fmt.Sprintf("ls pkg%d", i), fmt.Sprintf("pkg%d/a.py\npkg%d/b.py\n", i, i)
	})
}

// A file read whose file the agent has read again (the same lines or
// more) is masked at the masking step that follows the later read, to a
// reference and a note naming the later read (no critical lines: a read
// that reports no failure is the file's source, maskedView's quiet); the
// latest read of the file stays whole, and so does a read that only an
// edit follows. Between steps the turns only append, and the stale
// read's bytes stay the same at the next step. Chat, Responses and
// Messages.
func TestSupersededReadMaskedAtStep(t *testing.T) {
	const horizon, step = 4, 8
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			msgs := staleRounds()
			store := newStore(t)
			o := New(Options{Store: store})
			callOf := func(got *request.Request, id string) string {
				for _, it := range got.Items {
					for _, s := range it.Segments {
						if s.Kind == request.SegToolResult && s.CallID() == id {
							return s.Text
						}
					}
				}
				t.Fatalf("no output of %s", id)
				return ""
			}
			var prev *request.Request
			var staleView string
			prevMask, outputs, appended := -1, 0, 0
			for k := 2; k < len(msgs); k++ {
				if msgs[k].Role != "tool" {
					continue
				}
				outputs++
				in := convo.Body(f, "gpt-4o", msgs[:k+1], nil)
				res := optimize(t, o, in, Call{Session: "s", ContextWindow: 1 << 20, MaskHorizon: horizon, MaskStep: step})
				got := paired(t, res.Body, f)
				mask := 0
				if outputs > horizon {
					mask = (outputs - horizon) / step * step
				}
				if outputs > 9 {
					cart := callOf(got, "call_8")
					switch {
					case mask == 0:
						if cart != msgs[2+2*8+1].Result.Text {
							t.Fatalf("%d outputs: the read of shop/cart.py changed before a masking step", outputs)
						}
					case staleView == "":
						staleView = cart
						if !strings.Contains(cart, "superseded by the read at message ") || strings.Contains(cart, "compute_cart_30(") {
							t.Fatalf("%d outputs: the superseded read is not masked: %.300s", outputs, cart)
						}
						if strings.Contains(cart, "# FAILED tests/test_cart.py::test_total") {
							t.Errorf("the masked read, which reports no failure, keeps a source line as critical: %s", cart)
						}
						ms := request.ParseMarkers(cart)
						if len(ms) != 1 {
							t.Fatalf("want one reference, got %+v", ms)
						}
						if whole, _, err := store.Get(t.Context(), "s", ms[0].Hash); err != nil || string(whole) != msgs[2+2*8+1].Result.Text {
							t.Errorf("the reference does not resolve to the read: %v", err)
						}
					case cart != staleView:
						t.Errorf("%d outputs: the superseded read's view changed: %.300s", outputs, cart)
					}
				}
				if outputs > 11 && mask == 8 {
					if callOf(got, "call_9") != msgs[2+2*9+1].Result.Text {
						t.Errorf("%d outputs: a read followed only by an edit was masked", outputs)
					}
					if callOf(got, "call_11") != msgs[2+2*11+1].Result.Text {
						t.Errorf("%d outputs: the latest read of shop/cart.py was masked", outputs)
					}
				}
				if outputs > 14 {
					order := callOf(got, "call_12")
					if masked := strings.Contains(order, "superseded by the read at message "); masked != (mask >= 16) {
						t.Errorf("%d outputs (masking boundary %d): the read of shop/order.py read again at 14 masked %v", outputs, mask, masked)
					}
				}
				if appendOnly(t, prev, got, prevMask == mask, outputs) {
					appended++
				}
				prev, prevMask = got, mask
			}
			if staleView == "" || appended < outputs*2/3 {
				t.Errorf("stale read masked: %v; %d append-only turns of %d", staleView != "", appended, outputs)
			}
		})
	}
}
