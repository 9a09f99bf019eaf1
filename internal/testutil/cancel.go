package testutil

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// LookCtx is a context that counts the looks at its error and, at the
// look numbered cancelAt (never when 0), is cancelled before that look
// answers: a cancellation (a client hanging up) arriving while
// the work runs, at a chosen point of it, with no clock involved.
type LookCtx struct {
	context.Context
	cancel   context.CancelFunc
	cancelAt int64
	looks    atomic.Int64
}

// CancelAtLook returns a LookCtx under t's context cancelled at look at
// (never when 0).
func CancelAtLook(t testing.TB, at int64) *LookCtx {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	return &LookCtx{Context: ctx, cancel: cancel, cancelAt: at}
}

// Err counts a look and is the wrapped context's error.
func (c *LookCtx) Err() error {
	if n := c.looks.Add(1); c.cancelAt > 0 && n == c.cancelAt {
		c.cancel()
	}
	return c.Context.Err()
}

// Looks is how many times Err was called.
func (c *LookCtx) Looks() int64 { return c.looks.Load() }

// ManyMessages is a chat request of a system message and n tiny user
// messages (issue 28's request of many small messages).
func ManyMessages(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful."}`)
	for i := range n {
		fmt.Fprintf(&buf, `, {"role": "user", "content": "message %d says a few words"}`, i)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}
