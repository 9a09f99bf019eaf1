package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// ErrEncoding reports bytes that are not a graph [Graph.AppendBinary]
// wrote.
var ErrEncoding = errors.New("graph: bad encoding")

// AppendBinary appends the graph's rows to b: the node and edge counts,
// then the offsets, targets and weights as little-endian 32-bit words.
// [Decode] reads it back.
func (g *Graph) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(g.Len()))
	b = binary.AppendUvarint(b, uint64(len(g.dst)))
	b = growBytes(b, 4*(len(g.off)+2*len(g.dst)))
	for _, o := range g.off {
		b = binary.LittleEndian.AppendUint32(b, uint32(o))
	}
	for _, d := range g.dst {
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
	}
	for _, w := range g.w {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(w))
	}
	return b, nil
}

func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		return nb
	}
	return b
}

// Decode reads a graph [Graph.AppendBinary] wrote, and checks it is one:
// offsets ascending and in range, targets among the nodes, weights
// positive and finite. Anything else is [ErrEncoding].
func Decode(b []byte) (*Graph, error) {
	r := uvarint.NewReader(b)
	n, m := r.Uvarint(), r.Uvarint()
	if r.Err() != nil {
		return nil, fmt.Errorf("%w: node and edge counts: %v", ErrEncoding, r.Err())
	}
	b = r.Bytes(r.Len())
	if n >= math.MaxInt32 || m >= math.MaxInt32 || uint64(len(b)) != 4*(n+1+2*m) {
		return nil, fmt.Errorf("%w: %d nodes and %d edges in %d bytes", ErrEncoding, n, m, len(b))
	}
	g := &Graph{off: make([]int32, n+1), dst: make([]int32, m), w: make([]float32, m)}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	for i := range g.off {
		g.off[i] = int32(word(i))
		if i > 0 && g.off[i] < g.off[i-1] || g.off[i] < 0 {
			return nil, fmt.Errorf("%w: offsets", ErrEncoding)
		}
	}
	if g.off[0] != 0 || int(g.off[n]) != int(m) {
		return nil, fmt.Errorf("%w: offsets", ErrEncoding)
	}
	base := int(n + 1)
	for i := range g.dst {
		d := word(base + i)
		if uint64(d) >= n {
			return nil, fmt.Errorf("%w: target %d of %d nodes", ErrEncoding, d, n)
		}
		g.dst[i] = int32(d)
	}
	base += int(m)
	for i := range g.w {
		w := math.Float32frombits(word(base + i))
		if !(w > 0) || math.IsInf(float64(w), 0) {
			return nil, fmt.Errorf("%w: weight", ErrEncoding)
		}
		g.w[i] = w
	}
	return g, nil
}
