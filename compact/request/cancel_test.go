package request

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestParseContextStops: a parse whose context is cancelled while it
// runs returns the context's error having gone at most checkEvery steps
// (array elements validated or items parsed) past the cancellation, and
// not to the end of the body (issue 28: the proxy's work stops soon after
// its client leaves). Uncancelled, it reads what Parse reads.
func TestParseContextStops(t *testing.T) {
	const n = 30000
	body := testutil.ManyMessages(n)
	want, err := Parse(body, FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	whole := testutil.CancelAtLook(t, 0)
	got, err := ParseContext(whole, body, FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != len(want.Items) || len(got.Items) != n+1 {
		t.Fatalf("ParseContext read %d items, Parse %d, want %d", len(got.Items), len(want.Items), n+1)
	}
	for i, it := range got.Items {
		w := want.Items[i]
		if !bytes.Equal(it.Raw(), w.Raw()) || it.Role() != w.Role() || it.Kind != w.Kind || len(it.Segments) != len(w.Segments) || it.Segments[0].Text != w.Segments[0].Text {
			t.Fatalf("item %d: ParseContext read %q, Parse %q", i, it.Raw(), w.Raw())
		}
	}
	looks := whole.Looks()
	// Two loops over the messages (validation, then the items), a look
	// every checkEvery steps of each, and one before, between and after.
	if min := int64(2 * n / checkEvery); looks < min {
		t.Fatalf("a whole parse looked at its context %d times, want at least %d", looks, min)
	}
	t.Logf("a whole parse of %d messages looks at its context %d times", n, looks)
	tests := []struct {
		name string
		at   int64
	}{
		{"before the work", 1},
		{"during validation", 10},
		{"during the items", looks - 10},
		{"at the last look", looks},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testutil.CancelAtLook(t, tt.at)
			r, err := ParseContext(ctx, body, FormatChat)
			if !errors.Is(err, context.Canceled) || r != nil {
				t.Fatalf("ParseContext = %v, %v; want context.Canceled", r != nil, err)
			}
			// Once cancelled, the parse looks no more: at most
			// checkEvery steps past the look that saw it.
			if got := ctx.Looks(); got != tt.at {
				t.Errorf("%d looks, cancelled at look %d: the parse went on", got, tt.at)
			}
		})
	}
}

// TestParseContextErrors: with a live context, a body that is not JSON
// or not a request is refused as by Parse, not as a cancellation.
func TestParseContextErrors(t *testing.T) {
	for _, body := range []string{`{"messages": [1, 2`, `[1, 2]`, `{"model": "x"}`} {
		_, want := Parse([]byte(body), FormatChat)
		_, got := ParseContext(t.Context(), []byte(body), FormatChat)
		if want == nil || got == nil || got.Error() != want.Error() || errors.Is(got, context.Canceled) {
			t.Errorf("%s: ParseContext %v, Parse %v", body, got, want)
		}
	}
}

// TestCheckNoAlloc: looking at the context allocates nothing.
func TestCheckNoAlloc(t *testing.T) {
	c := &canceller{ctx: t.Context()}
	if n := testing.AllocsPerRun(10, func() {
		for range 10 * checkEvery {
			c.stop()
		}
	}); n != 0 {
		t.Errorf("%v allocations a %d steps", n, 10*checkEvery)
	}
}
