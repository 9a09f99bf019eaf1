package tokens

import (
	"bytes"
	"compress/flate"
	"embed"
	"encoding/binary"
	"fmt"
	"io"
)

// The vocabularies of the encodings ctxd counts with (cl100k_base,
// o200k_base), in a compact form generated from the .tiktoken files of
// github.com/pkoukk/tiktoken-go-loader (TestVocabFiles, which rewrites them
// with -update). Every token of a byte-pair vocabulary longer than one
// byte is two tokens of lower rank put together, so a token is stored as
// that pair of ranks (a one-byte token as a marker and its byte): after a
// 4-byte count n, the n left ranks then the n right ranks, each as 3-byte
// little-endian numbers split in byte planes (the n low bytes, the n
// middle, the n high), which DEFLATE compresses better than the tokens'
// text. The loader's files hold each token in base64 with its rank in
// decimal, and embed p50k_base and r50k_base too, which ctxd never counts
// with: 6.97 MB in the binary against 1.07 MB here (1.51 MB as
// length-prefixed text, DEFLATE-compressed).
//
//go:embed vocab/*.deflate
var vocabFiles embed.FS

// vocabFile is the embedded file of an encoding.
func vocabFile(encoding string) string { return "vocab/" + encoding + ".deflate" }

// loadVocab decodes the embedded vocabulary of encoding.
func loadVocab(encoding string) (*rankTable, error) {
	z, err := vocabFiles.ReadFile(vocabFile(encoding))
	if err != nil {
		return nil, fmt.Errorf("load %s vocabulary: %w", encoding, err)
	}
	var buf bytes.Buffer
	buf.Grow(6 * len(z)) // about the ratio of the files
	if _, err := io.Copy(&buf, flate.NewReader(bytes.NewReader(z))); err != nil {
		return nil, fmt.Errorf("decompress the %s vocabulary: %w", encoding, err)
	}
	return decodeVocab(buf.Bytes())
}

// byteToken is the left rank that marks a one-byte token (its byte is
// the right rank).
const byteToken = 1<<24 - 1

// decodeVocab reads the decompressed form: the count, then the planes of
// the left and right ranks. The tokens are rebuilt in rank order into one
// buffer the table indexes.
func decodeVocab(b []byte) (*rankTable, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("vocabulary of %d bytes: no count", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > maxRank+1 || len(b) != 4+6*n {
		return nil, fmt.Errorf("vocabulary of %d bytes: want 4 + 6 × %d", len(b), n)
	}
	rank := func(plane int, r int) int {
		p := b[4+3*plane*n:]
		return int(p[r]) | int(p[n+r])<<8 | int(p[2*n+r])<<16
	}
	offs := make([]int, n+1) // token r is data[offs[r]:offs[r+1]]
	data := make([]byte, 0, 8*n)
	for r := range n {
		left, right := rank(0, r), rank(1, r)
		switch {
		case left == byteToken && right < 256:
			data = append(data, byte(right))
		case left < r && right < r:
			if l := offs[left+1] - offs[left] + offs[right+1] - offs[right]; l > maxTokenLen {
				return nil, fmt.Errorf("rank %d: a token of %d bytes, more than %d", r, l, maxTokenLen)
			}
			data = append(data, data[offs[left]:offs[left+1]]...)
			data = append(data, data[offs[right]:offs[right+1]]...)
		default:
			return nil, fmt.Errorf("rank %d: pair (%d, %d) is not of lower ranks", r, left, right)
		}
		offs[r+1] = len(data)
	}
	text := string(data)
	ranks := newRankTable(text, n)
	for r := range n {
		if err := ranks.put(offs[r], offs[r+1]-offs[r], r); err != nil {
			return nil, err
		}
	}
	return ranks, nil
}
