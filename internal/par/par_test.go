package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		got := make([]int32, n)
		if err := Each(t.Context(), n, func(i int) { atomic.AddInt32(&got[i], 1) }); err != nil {
			t.Fatal(err)
		}
		for i, c := range got {
			if c != 1 {
				t.Fatalf("n=%d: item %d ran %d times", n, i, c)
			}
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	var ran atomic.Int32
	err := Each(ctx, 1000, func(i int) {
		if ran.Add(1) == 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || ran.Load() >= 1000 {
		t.Errorf("after cancel: err %v, %d calls", err, ran.Load())
	}
}
