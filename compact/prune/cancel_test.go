package prune

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
)

// TestCancelReachesEviction: the pruner checks its context inside the
// eviction loop, not only before and after it: a context cancelled
// halfway through the checks of a 30,000-message run (the proxy's
// request context when the client hangs up) makes Compress return
// context.Canceled, having made at most a few more checks (the steps after the loop
// each check once); before any
// work, it returns at once.
func TestCancelReachesEviction(t *testing.T) {
	body := manySmall(30000)
	p, err := New(Options{Model: "gpt-4o", Budget: 30000 * 3})
	if err != nil {
		t.Fatal(err)
	}
	full := testutil.CancelAtLook(t, 0)
	if _, _, err := p.Compress(full, body); err != nil {
		t.Fatal(err)
	}
	n := full.Looks()
	t.Logf("a whole run checks its context %d times", n)
	if n < 1000 {
		t.Fatalf("the run checked its context %d times: not inside its loop over 30,000 messages", n)
	}
	tests := []struct {
		name string
		at   int64
	}{
		{"before the work", 1},
		{"halfway through the evictions", n / 2},
		{"at the last check", n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testutil.CancelAtLook(t, tt.at)
			_, _, err := p.Compress(ctx, body)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Compress = %v, want context.Canceled", err)
			}
			if got := ctx.Looks(); got > tt.at+8 {
				t.Errorf("%d checks after the cancellation at check %d: the work went on", got-tt.at, tt.at)
			}
		})
	}
}

// TestCompressParsed: the pruner given the request parsed already
// answers what it answers given the body, and the plan it returns proves
// and counts its output as parsing it whole does.
func TestCompressParsed(t *testing.T) {
	for _, f := range request.Formats {
		for _, n := range []int{40, 900} {
			t.Run(fmt.Sprint(f, n), func(t *testing.T) {
				c := conv{sys("You are helpful.")}
				for i := range n {
					c = append(c, user(fmt.Sprintf("question %d", i)), asst(fmt.Sprintf("answer %d about the build", i)))
				}
				body := render(f, "gpt-4o", c)
				opts := Options{Model: "gpt-4o", Budget: n * 8, Format: f}
				p, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				want, wantRep, wantErr := p.Compress(t.Context(), body)
				req, err := request.Parse(body, f)
				if err != nil {
					t.Fatal(err)
				}
				got, plan, gotRep, gotErr := p.CompressParsed(t.Context(), req)
				if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || !slices.Equal(got, want) || fmt.Sprint(gotRep) != fmt.Sprint(wantRep) {
					t.Fatalf("CompressParsed differs from Compress (%v / %v)", wantErr, gotErr)
				}
				if gotErr != nil {
					return
				}
				counter, m := tokens.ForModel("gpt-4o", 0)
				est := request.NewEstimator(counter, request.ImageRuleFor(m, f))
				whole, err := request.Parse(got, f)
				if err != nil {
					t.Fatal(err)
				}
				wantN := est.Request(whole)
				n, err := plan.Verify(got, est)
				if err != nil || n != wantN {
					t.Errorf("the plan: Verify %d, %v; the whole parse %d tokens", n, err, wantN)
				}
			})
		}
	}
}
