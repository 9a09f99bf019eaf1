package request

import "context"

// checkEvery is how many steps of a long loop (array elements validated,
// items parsed) pass between two looks at the context: a look may take a
// lock, a step is a little parsing, so a parse notices a cancellation
// within about a thousand steps (issue 28: the proxy's work
// stops soon after its client leaves, at any size).
const checkEvery = 1024

// canceller looks at a context every checkEvery steps. The zero value
// and a nil pointer never stop. Once stopped it stays stopped.
type canceller struct {
	ctx context.Context
	n   uint32
	err error
}

// stop counts a step and reports whether the work must stop: the
// context's error, looked at every checkEvery steps.
func (c *canceller) stop() bool {
	if c == nil || c.ctx == nil {
		return false
	}
	if c.err != nil {
		return true
	}
	if c.n++; c.n%checkEvery != 0 {
		return false
	}
	c.err = c.ctx.Err()
	return c.err != nil
}

// check looks at the context now (once before the work, once after a
// step that stopped).
func (c *canceller) check() error {
	if c == nil || c.ctx == nil {
		return nil
	}
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	return c.err
}
