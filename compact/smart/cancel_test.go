package smart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
)

// lookCtx counts the looks at its context's error and, at the look
// numbered cancelAt (never when 0), has another goroutine cancel the
// context it wraps (a client hanging up) and waits for it.
type lookCtx struct {
	context.Context
	cancel   context.CancelFunc
	cancelAt int64
	looks    atomic.Int64
}

func (c *lookCtx) Err() error {
	if n := c.looks.Add(1); c.cancelAt > 0 && n == c.cancelAt {
		done := make(chan struct{})
		go func() { c.cancel(); close(done) }()
		<-done
	}
	return c.Context.Err()
}

// TestCancelDuringPasses: the optimizer looks at its context while it
// parses and counts a request of 30,000 messages and between its passes
// over them (issue 28: the proxy's work stops soon after its client
// leaves): cancelled at any look, it returns context.Canceled having
// looked a few times more at most.
func TestCancelDuringPasses(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(`{"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful."}`)
	for i := range 30000 {
		fmt.Fprintf(&buf, `, {"role": "user", "content": "message %d says a few words"}`, i)
	}
	buf.WriteString("]}")
	body := buf.Bytes()
	o := New(Options{})
	run := func(at int64) (*lookCtx, error) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		lc := &lookCtx{Context: ctx, cancel: cancel, cancelAt: at}
		_, err := o.Optimize(lc, body, Call{Format: request.FormatChat, Budget: 1000000})
		return lc, err
	}
	whole, err := run(0)
	if err != nil {
		t.Fatal(err)
	}
	n := whole.looks.Load()
	t.Logf("a whole run looks at its context %d times", n)
	// The parse looks 4 times a 1024 messages (3 elements validated
	// and an item parsed each), the count once.
	if n < 5*30000/1024 {
		t.Fatalf("a whole run looked at its context %d times: not inside its passes", n)
	}
	for _, at := range []int64{1, n / 4, n / 2, n - 20, n - 3, n - 2, n - 1} {
		t.Run(fmt.Sprint("at look ", at), func(t *testing.T) {
			lc, err := run(at)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Optimize = %v, want context.Canceled", err)
			}
			if got := lc.looks.Load(); got > at+8 {
				t.Errorf("%d looks after the cancellation at look %d: the work went on", got-at, at)
			}
		})
	}
}
