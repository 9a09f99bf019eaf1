//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// bigGo is a Go source of about 1 MB: its parse takes far more than a
// few milliseconds and far less than a minute.
func bigGo(seed string) []byte {
	var b strings.Builder
	b.WriteString("package p\n\n// " + seed + "\n")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "func f%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a + b\n}\n\n", i)
	}
	return []byte(b.String())
}

// fixed is a time budget of d whatever the clock says: the parse gets d
// exactly (the context has no deadline), so the test does not depend on
// the machine's load.
func fixed(d time.Duration) func() timeLeft { return func() timeLeft { return timeLeft{d: d} } }

// TestTimeoutVerdict: a content whose parse ran out of time is recorded
// in the store (and its encoding or records), and is not parsed again
// with as much time, by any entry point that has the store; a changed
// content, more time or an old verdict parse it again, and a parse that
// finishes clears the verdict.
func TestTimeoutVerdict(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	clock := time.Now()
	now = func() time.Time { return clock }
	const short = 5 * time.Millisecond
	src := bigGo("one")
	sum := sumOf(src)
	ctx := t.Context()
	for _, recs := range []bool{false, true} {
		t.Run(fmt.Sprintf("records=%v", recs), func(t *testing.T) {
			resetCaches()
			s := NewStore()
			if recs {
				if err := s.SetRecords(testutil.NewRecords()); err != nil {
					t.Fatal(err)
				}
			}
			// analyze runs one analysis with a budget of d and reports
			// whether it parsed and whether it timed out.
			analyze := func(s *Store, src []byte, d time.Duration, leaves bool) (parsed, timedOut bool) {
				t.Helper()
				resetCaches()
				var leaf func(string, int, int)
				if leaves {
					leaf = func(string, int, int) {}
				}
				n := parsesStarted.Load()
				_, err := analyzeKept(ctx, "go", src, sumOf(src), fixed(d), leaf, s, false)
				var te *TimeoutError
				if err != nil && !errors.As(err, &te) {
					t.Fatalf("analysis: %v", err)
				}
				return parsesStarted.Load() > n, err != nil
			}
			if parsed, to := analyze(s, src, short, false); !parsed || !to {
				t.Fatalf("first analysis: parsed %v, timed out %v; want a parse that times out", parsed, to)
			}
			v, ok := s.timeout(timeoutKey("go", sum))
			if !ok || v.limit != short {
				t.Fatalf("verdict %+v (%v), want one of %v", v, ok, short)
			}
			for _, leaves := range []bool{false, true} {
				if parsed, to := analyze(s, src, short, leaves); parsed || !to {
					t.Errorf("again (leaves %v): parsed %v, timed out %v; want a timeout without a parse", leaves, parsed, to)
				}
			}
			// The public entry points with a deadline as short.
			n := parsesStarted.Load()
			if _, err := Views(ctx, "go", src, Options{Store: s, Timeout: short}); !errors.As(err, new(*TimeoutError)) {
				t.Errorf("Views: %v, want a timeout", err)
			}
			sctx, cancel := context.WithTimeout(ctx, short)
			if _, err := FileTagsStored(sctx, "go", src, s); !errors.As(err, new(*TimeoutError)) {
				t.Errorf("FileTagsStored: %v, want a timeout", err)
			}
			if _, err := SymbolsStored(sctx, "go", src, s); !errors.As(err, new(*TimeoutError)) {
				t.Errorf("SymbolsStored: %v, want a timeout", err)
			}
			if _, _, err := Prepare(sctx, "go", src, s, true); !errors.As(err, new(*TimeoutError)) {
				t.Errorf("Prepare: %v, want a timeout", err)
			}
			cancel()
			if d := parsesStarted.Load() - n; d != 0 {
				t.Errorf("the entry points parsed %d times", d)
			}
			// The next process has the verdict.
			s2 := s
			if !recs {
				s2 = roundTrip(t, s)
			}
			if parsed, _ := analyze(s2, src, short, true); parsed {
				t.Errorf("a store decoded from the encoding parsed again")
			}
			// Another content is parsed.
			if parsed, _ := analyze(s, bigGo("two"), short, false); !parsed {
				t.Errorf("a changed content was not parsed")
			}
			// A little more time (the slack of one caller's limits) is
			// not worth a parse; twice as much is.
			if parsed, _ := analyze(s, src, short+short/10, false); parsed {
				t.Errorf("parsed with a tenth more time")
			}
			if parsed, to := analyze(s, src, 2*short, false); !parsed || !to {
				t.Errorf("with twice the time: parsed %v, timed out %v; want a parse that times out", parsed, to)
			}
			// The verdict is now of 2*short; a day later it is tried again.
			clock = clock.Add(timeoutRetry)
			if parsed, _ := analyze(s, src, short, false); !parsed {
				t.Errorf("an old verdict was not retried")
			}
			if parsed, _ := analyze(s, src, short, false); parsed {
				t.Errorf("the retry that timed out did not renew the verdict")
			}
			// A parse with time enough finishes and clears the verdict.
			if parsed, to := analyze(s, src, slow, false); !parsed || to {
				t.Fatalf("with a minute: parsed %v, timed out %v; want a parse that finishes", parsed, to)
			}
			if v, ok := s.timeout(timeoutKey("go", sum)); !ok || v.holds(short, now()) {
				t.Errorf("verdict after a finished parse: %+v (%v), want a cleared one", v, ok)
			}
			if parsed, _ := analyze(s, src, short, true); !parsed {
				t.Errorf("not parsed after the verdict was cleared")
			}
		})
	}
}

// TestTimeoutVerdictDecode: verdicts round-trip; malformed ones are none.
func TestTimeoutVerdictDecode(t *testing.T) {
	at := time.Unix(1_790_000_000, 0)
	for _, v := range []timeoutVerdict{{2 * time.Second, at}, {0, at}, {time.Microsecond, time.Unix(0, 0)}} {
		got, ok := decodeTimeout(v.encode())
		if !ok || got.limit != v.limit || !got.at.Equal(v.at) {
			t.Errorf("%+v decoded as %+v (%v)", v, got, ok)
		}
	}
	good := timeoutVerdict{time.Second, at}.encode()
	for _, b := range [][]byte{nil, {0x80}, good[:1], append(append([]byte(nil), good...), 0)} {
		if v, ok := decodeTimeout(b); ok {
			t.Errorf("%x decoded as %+v", b, v)
		}
	}
}

// FuzzDecodeTimeout: any bytes decode to no verdict or to one in range
// that encodes and decodes again to itself.
func FuzzDecodeTimeout(f *testing.F) {
	f.Add(timeoutVerdict{time.Second, time.Unix(1_790_000_000, 0)}.encode())
	f.Add([]byte{0x80, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := decodeTimeout(b)
		if !ok {
			return
		}
		if v.limit < 0 || v.at.Unix() < 0 {
			t.Fatalf("%x decoded as %+v", b, v)
		}
		if again, ok := decodeTimeout(v.encode()); !ok || again.limit != v.limit || !again.at.Equal(v.at) {
			t.Fatalf("%+v decoded again as %+v (%v)", v, again, ok)
		}
	})
}
