package tokens

import (
	"bytes"
	"compress/flate"
	"embed"
	"fmt"
	"io"
)

// The vocabularies of the encodings ctxd counts with (cl100k_base,
// o200k_base), in a compact form generated from the .tiktoken files of
// github.com/pkoukk/tiktoken-go-loader (TestVocabFiles, which rewrites them
// with -update): each token in rank order as one length byte and the
// token's bytes (a length of zero is a rank without a token), the whole
// compressed with DEFLATE. The loader's files hold each token in base64
// with its rank in decimal, and embed p50k_base and r50k_base too, which
// ctxd never counts with: 6.97 MB in the binary against 1.56 MB here.
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
	buf.Grow(3 * len(z)) // about the ratio of the files
	if _, err := io.Copy(&buf, flate.NewReader(bytes.NewReader(z))); err != nil {
		return nil, fmt.Errorf("decompress the %s vocabulary: %w", encoding, err)
	}
	return decodeVocab(buf.String())
}

// decodeVocab reads the decompressed form: length-prefixed tokens in rank
// order. The table indexes the tokens where they lie in data.
func decodeVocab(data string) (*rankTable, error) {
	n := 0
	for off := 0; off < len(data); off += 1 + int(data[off]) {
		if data[off] > 0 {
			n++
		}
	}
	ranks := newRankTable(data, n)
	rank := 0
	for off := 0; off < len(data); rank++ {
		l := int(data[off])
		off++
		if off+l > len(data) {
			return nil, fmt.Errorf("rank %d: a token of %d bytes past the end of the vocabulary", rank, l)
		}
		if l > 0 {
			if err := ranks.put(off, l, rank); err != nil {
				return nil, err
			}
		}
		off += l
	}
	return ranks, nil
}
