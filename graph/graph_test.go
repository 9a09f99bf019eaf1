package graph

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
)

// edges is a Source from a list.
type edges [][3]float64

func (es edges) Edges(add func(from, to int32, w float32)) {
	for _, e := range es {
		add(int32(e[0]), int32(e[1]), float32(e[2]))
	}
}

func TestBuild(t *testing.T) {
	g := Build(5, Options{MaxOut: 2},
		edges{{0, 1, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 0.1}, {0, 0, 1}, {1, 7, 1}, {4, 4, 1},
			{1, 0, 0.5}, {1, 0, 0.5}, {2, 0, 0.5}, {3, 0, 0.05}})
	if g.Len() != 5 {
		t.Fatalf("Len = %d", g.Len())
	}
	dst, w := g.Out(0)
	// 0→1 merged (2), 0→2 (1), 0→3 (0.1) cut by MaxOut; no self-loop.
	if len(dst) != 2 || dst[0] != 1 || dst[1] != 2 {
		t.Fatalf("row 0 = %v %v", dst, w)
	}
	if math.Abs(float64(w[0])-2.0/3) > 1e-6 || math.Abs(float64(w[1])-1.0/3) > 1e-6 {
		t.Errorf("row 0 weights = %v, want 2/3 1/3", w)
	}
	// Reverse edges: 1→0 (merged 0.5+0.5), 2→0, 3→0.
	for _, n := range []int32{1, 2, 3} {
		if d, _ := g.Out(n); len(d) != 1 || d[0] != 0 {
			t.Errorf("row %d = %v, want [0]", n, d)
		}
	}
	if d, _ := g.Out(4); len(d) != 0 {
		t.Errorf("row 4 = %v, want none (self-loop dropped)", d)
	}
}

func TestPageRankRanksTheImportedFileAboveUnrelatedOnes(t *testing.T) {
	// 0 (seed) imports 1; 1 imports 2; 3 and 4 import each other and
	// have nothing to do with the seed; 5 imports the seed.
	g := Build(6, Options{}, edges{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}, {4, 3, 1}, {5, 0, 1},
		{1, 0, 0.5}, {2, 1, 0.5}, {0, 5, 0.5}})
	s := g.PageRank(map[int32]float64{0: 1}, 0, 0)
	if !(s[1] > s[2] && s[2] > 0) {
		t.Errorf("imported file %g should outrank its import %g > 0", s[1], s[2])
	}
	if s[3] != 0 || s[4] != 0 {
		t.Errorf("unrelated files got %g %g, want 0", s[3], s[4])
	}
	if !(s[5] > 0 && s[5] < s[1]) {
		t.Errorf("importer %g should be reached, below the imported file %g", s[5], s[1])
	}
	top := Top(s, 2)
	if len(top) != 2 || top[0].Node != 1 {
		t.Errorf("Top = %v, want node 1 first", top)
	}
	if got := g.PageRank(nil, 0, 0); Top(got, 0) != nil {
		t.Errorf("no seeds: %v, want all zero", got)
	}
}

func TestPageRankSeedsReinforceEachOther(t *testing.T) {
	// Seeds 0 and 1 link to each other; seed 2 is alone: 0 and 1 receive
	// mass from each other, 2 receives none.
	g := Build(3, Options{}, edges{{0, 1, 1}, {1, 0, 1}})
	s := g.PageRank(map[int32]float64{0: 1, 1: 1, 2: 1}, 0, 0)
	if !(s[0] > 0 && s[1] > 0) || s[2] != 0 {
		t.Errorf("scores %v: linked seeds should score, the lone seed not", s)
	}
}

// table is a SymbolTable from lists.
type table struct{ defs, uses [][]uint32 }

func (t table) Len() int               { return len(t.defs) }
func (t table) Defines(i int) []uint32 { return t.defs[i] }
func (t table) Uses(i int) []uint32    { return t.uses[i] }

func TestReferences(t *testing.T) {
	// File 0 uses name 10 (defined only in 1) and name 20 (defined in
	// 2, 3, 4 and 5: too many definers); file 1 uses 30 (defined in 2)
	// and 40, which 40 files use (too common).
	tb := table{defs: make([][]uint32, 45), uses: make([][]uint32, 45)}
	tb.defs[1] = []uint32{10, 40}
	tb.uses[0] = []uint32{10, 20}
	tb.uses[1] = []uint32{10, 30, 40}
	for _, i := range []int{2, 3, 4, 5} {
		tb.defs[i] = []uint32{20}
	}
	tb.defs[2] = append(tb.defs[2], 30)
	for i := 5; i < 45; i++ {
		tb.uses[i] = []uint32{40}
	}
	got := map[[2]int32]float32{}
	References(tb, RefOptions{MaxUsers: 30}).Edges(func(from, to int32, w float32) { got[[2]int32{from, to}] += w })
	want := map[[2]int32]bool{{0, 1}: true, {1, 2}: true}
	for e := range got {
		if !want[e] {
			t.Errorf("unexpected edge %v", e)
		}
	}
	for e := range want {
		if got[e] <= 0 {
			t.Errorf("missing edge %v", e)
		}
	}
	// Name 10 has two users (0 and 1), name 30 one: the rarer use weighs more.
	if !(got[[2]int32{1, 2}] > got[[2]int32{0, 1}]) {
		t.Errorf("weights %v: a name with one user should weigh more than one with two", got)
	}
}

func TestCoChanged(t *testing.T) {
	big := make([]string, 40)
	for i := range big {
		big[i] = string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	h := NewHistory([][]string{
		{"a.go", "b.go"},
		{"a.go", "b.go", "c.go"},
		{"a.go", "d.go", "e.go", "f.go"},
		{"x.go", "y.go"},
		{"a.go"},                                 // alone: says nothing
		append([]string{"a.go", "z.go"}, big...), // too big: skipped
	}, 0)
	if h.Len() != 4 || h.Skipped != 1 {
		t.Fatalf("kept %d commits, skipped %d; want 4, 1", h.Len(), h.Skipped)
	}
	got := h.CoChanged(map[string]float64{"a.go": 1}, 0, 0, func(p string) bool { return p != "f.go" })
	var order []string
	for _, s := range got {
		order = append(order, s.Path)
	}
	want := []string{"b.go", "c.go", "d.go", "e.go"}
	if len(order) != len(want) {
		t.Fatalf("CoChanged = %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("CoChanged = %v, want %v", order, want)
		}
	}
	// b.go: 1 + 1/2; c.go: 1/2; d.go, e.go: 1/3 each.
	if math.Abs(got[0].Score-1.5) > 1e-9 || math.Abs(got[1].Score-0.5) > 1e-9 {
		t.Errorf("scores %v", got)
	}
	// Decay: the newest commit counts most.
	dec := h.CoChanged(map[string]float64{"a.go": 1}, 1, 0, nil)
	if dec[0].Path != "b.go" || !(dec[0].Score < 1.5) {
		t.Errorf("decayed = %v", dec)
	}
	if h.CoChanged(map[string]float64{"nope.go": 1}, 0, 0, nil) != nil {
		t.Error("a seed absent from the history should find nothing")
	}
}

// grouped is a table whose files fall in two languages.
type grouped struct {
	table
	group []int32
}

func (g grouped) Group(i int) int32 { return g.group[i] }

func TestReferencesOptions(t *testing.T) {
	// File 0 uses names 1..20, each defined in its own file 1..20; file 21
	// defines name 100, which file 22 (another language) uses.
	tb := table{defs: make([][]uint32, 23), uses: make([][]uint32, 23)}
	for i := 1; i <= 20; i++ {
		tb.defs[i] = []uint32{uint32(i)}
		tb.uses[0] = append(tb.uses[0], uint32(i))
	}
	tb.defs[21] = []uint32{100}
	tb.uses[22] = []uint32{100}
	gt := grouped{tb, make([]int32, 23)}
	gt.group[22] = 1
	type key [2]int32
	collect := func(st SymbolTable, o RefOptions) map[key]float32 {
		got := map[key]float32{}
		References(st, o).Edges(func(from, to int32, w float32) { got[key{from, to}] += w })
		return got
	}
	got := collect(gt, RefOptions{PerFile: 5, Reverse: 0.5})
	out, back := 0, 0
	for e, w := range got {
		switch {
		case e[0] == 0:
			out++
		case e[1] == 0:
			back++
			if fw := got[key{0, e[0]}]; w != fw*0.5 {
				t.Errorf("reverse %v weighs %g, want half of %g", e, w, fw)
			}
		default:
			t.Errorf("unexpected edge %v", e)
		}
	}
	if out != 5 || back != 5 {
		t.Errorf("%d edges out of file 0 and %d back, want 5 and 5 (PerFile)", out, back)
	}
	if got := collect(tb, RefOptions{}); got[key{22, 21}] == 0 {
		t.Error("without groups, file 22 should link to the definer")
	}
}

func TestEncodeDecode(t *testing.T) {
	g := Build(5, Options{}, SourceFunc(func(add func(from, to int32, w float32)) {
		add(0, 1, 1)
		add(0, 2, 3)
		add(1, 2, 1)
		add(3, 0, 0.5)
		add(4, 3, 2)
	}))
	b, err := g.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, g) {
		t.Errorf("decoded %+v, want %+v", d, g)
	}
	empty, _ := Build(0, Options{}).AppendBinary(nil)
	if d, err := Decode(empty); err != nil || d.Len() != 0 {
		t.Errorf("empty graph: %v %v", d, err)
	}
	bad := []struct {
		name string
		b    []byte
	}{
		{"nothing", nil},
		{"truncated", b[:len(b)-1]},
		{"longer", append(append([]byte(nil), b...), 0, 0, 0, 0)},
		{"target out of range", patchWord(b, 6, 9)},
		{"offsets descend", patchWord(b, 2, 0)},
		{"zero weight", patchWord(b, 6+g.EdgeCount(), 0)},
	}
	for _, tt := range bad {
		if _, err := Decode(tt.b); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err %v, want ErrEncoding", tt.name, err)
		}
	}
}

// patchWord sets the i-th 32-bit word of an encoded small graph (after
// its two one-byte counts) to v.
func patchWord(b []byte, i int, v uint32) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[2+4*i:], v)
	return c
}

func FuzzDecode(f *testing.F) {
	g := Build(4, Options{}, SourceFunc(func(add func(from, to int32, w float32)) {
		add(0, 1, 1)
		add(1, 2, 1)
		add(2, 3, 1)
	}))
	b, _ := g.AppendBinary(nil)
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Decode(b)
		if err != nil {
			return
		}
		// A decoded graph is safe to walk.
		seeds := map[int32]float64{}
		if d.Len() > 0 {
			seeds[0] = 1
		}
		d.PageRank(seeds, 0.3, 3)
		d.TopPersonalized(seeds, WalkOptions{}, 10)
		for i := range d.Len() {
			d.Out(int32(i))
		}
	})
}
