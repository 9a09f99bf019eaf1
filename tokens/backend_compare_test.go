package tokens

import (
	"fmt"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/tiktoken-go/tokenizer"
)

// The comparison libraries live in tests only (the shipped binary drops
// them, 63 MB before): register their backends for this package's tests
// and benchmarks.
func init() {
	backendMakers[backendTokenizer] = func(enc string) (backend, error) { return newTokenizerBackend(enc) }
	backendMakers[backendTiktokenGo] = func(enc string) (backend, error) { return newTiktokenGoBackend(enc) }
}

// tokenizerBackend wraps github.com/tiktoken-go/tokenizer, whose
// vocabularies are compiled into the binary as Go maps.
type tokenizerBackend struct {
	codec tokenizer.Codec
}

func newTokenizerBackend(encoding string) (*tokenizerBackend, error) {
	c, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, fmt.Errorf("load %s with tiktoken-go/tokenizer: %w", encoding, err)
	}
	// Input is already valid UTF-8 (see validUTF8); ErrorModeNone skips a
	// second check.
	c.SetErrorMode(tokenizer.ErrorModeNone)
	return &tokenizerBackend{codec: c}, nil
}

func (b *tokenizerBackend) count(text string) int {
	// The codec only errors when its split regexp does, which needs a
	// match timeout we never set; count what was tokenized either way.
	n, _ := b.codec.Count(text)
	return n
}

func (b *tokenizerBackend) encode(text string) []int {
	ids, _, _ := b.codec.Encode(text)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// tiktokenGoBackend wraps github.com/pkoukk/tiktoken-go with the offline
// vocabularies of github.com/pkoukk/tiktoken-go-loader. Special tokens
// such as "<|endoftext|>" are counted as ordinary text, as with the other
// backend.
type tiktokenGoBackend struct {
	enc *tiktoken.Tiktoken
}

// setLoader installs the offline loader once: tiktoken-go's default loader
// downloads vocabularies, which ctxd never does.
var setLoader sync.Once

func newTiktokenGoBackend(encoding string) (*tiktokenGoBackend, error) {
	setLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	e, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("load %s with pkoukk/tiktoken-go: %w", encoding, err)
	}
	return &tiktokenGoBackend{enc: e}, nil
}

func (b *tiktokenGoBackend) count(text string) int { return len(b.enc.EncodeOrdinary(text)) }
func (b *tiktokenGoBackend) encode(text string) []int {
	return b.enc.EncodeOrdinary(text)
}
