//go:build cgo && !notreesitter

package treesitter

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// FuzzRender: arbitrary bytes in any language never panic, never run past
// the timeout, and never render larger than the input; views that render
// keep the level order, valid elided ranges, and parse.
//
//	go test -fuzz=FuzzRender ./treesitter
func FuzzRender(f *testing.F) {
	for _, in := range goldenInputs(f) {
		for i, l := range Languages {
			if l == in.lang {
				f.Add(uint8(i), in.src, uint8(1))
				f.Add(uint8(i), in.src[:len(in.src)/2], uint8(2))
			}
		}
	}
	f.Add(uint8(0), []byte("package a\nfunc f() {\n\tx()\n\ty()\n\tz()\n\tw()\n}\n"), uint8(1))
	f.Add(uint8(1), []byte("def f():\n    '''Doc. More.'''\n    a\n    b\n    c\n    d\n"), uint8(2))
	f.Add(uint8(5), []byte("fn f() { a(); b(); c(); d(); }"), uint8(0))
	f.Add(uint8(10), []byte("def f\n  a\n  b\n  c\n  d\nend\n"), uint8(1))
	for _, lang := range []string{"javascript", "python", "go"} {
		src, _ := innerSource(lang, 6, 4) // a large function of inner ones
		f.Add(uint8(slices.Index(Languages, lang)), []byte(src), uint8(7))
	}
	const limit = time.Second
	f.Fuzz(func(t *testing.T, li uint8, src []byte, level uint8) {
		lang := Languages[int(li)%len(Languages)]
		lv := Levels[int(level)%len(Levels)]
		start := time.Now()
		v, err := Render(context.Background(), lang, src, lv, Options{Timeout: limit, BodyThreshold: int(level % 5)})
		if took := time.Since(start); took > 4*limit+2*time.Second {
			t.Fatalf("Render took %v with a %v timeout", took, limit)
		}
		var te *TimeoutError
		if err != nil {
			if !errors.Is(err, ErrUnsupported) && !errors.As(err, &te) {
				t.Fatalf("Render: unexpected error %v", err)
			}
			return
		}
		if len(v.Text) > len(src) {
			t.Fatalf("%s view is %d bytes, input %d", lv, len(v.Text), len(src))
		}
		vs, err := Views(context.Background(), lang, src, Options{Timeout: limit, BodyThreshold: int(level % 5)})
		if errors.As(err, &te) {
			return
		}
		if err != nil {
			if lv != Full || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Render worked, Views failed: %v", err)
			}
			return
		}
		checkInvariants(t, lang, src, vs)
		// A kept line (a cursor): the functions around it stay whole, the
		// inner definitions of a large one collapse, and the views keep
		// their invariants.
		keep := 1 + int(level)*7%max(1, bytes.Count(src, []byte("\n")))
		vs, err = Views(context.Background(), lang, src, Options{Timeout: limit, KeepLines: []int{keep}})
		if err == nil {
			checkInvariants(t, lang, src, vs)
		}
	})
}
