package smart

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestCancelDuringPasses: the optimizer looks at its context while it
// parses and counts a request of 30,000 messages and between its passes
// over them (issue 28: the proxy's work stops soon after its client
// leaves): cancelled at any look, it returns context.Canceled having
// looked a few times more at most.
func TestCancelDuringPasses(t *testing.T) {
	body := testutil.ManyMessages(30000)
	o := New(Options{})
	run := func(t *testing.T, at int64) (*testutil.LookCtx, error) {
		ctx := testutil.CancelAtLook(t, at)
		_, err := o.Optimize(ctx, body, Call{Format: request.FormatChat, Budget: 1000000})
		return ctx, err
	}
	whole, err := run(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := whole.Looks()
	t.Logf("a whole run looks at its context %d times", n)
	// The parse looks 4 times a 1024 messages (3 elements validated
	// and an item parsed each), the count once.
	if n < 5*30000/1024 {
		t.Fatalf("a whole run looked at its context %d times: not inside its passes", n)
	}
	for _, at := range []int64{1, n / 4, n / 2, n - 20, n - 3, n - 2, n - 1} {
		t.Run(fmt.Sprint("at look ", at), func(t *testing.T) {
			ctx, err := run(t, at)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Optimize = %v, want context.Canceled", err)
			}
			if got := ctx.Looks(); got > at+8 {
				t.Errorf("%d looks after the cancellation at look %d: the work went on", got-at, at)
			}
		})
	}
}
