// Package benchreq holds the varied requests the scale benchmarks send to
// a tree built from the Go standard library (scripts/benchscale and
// engine's TestScaleHeap), so both measure the same work.
package benchreq

// Stdlib varies the query so a warm request is not a repeat of the last.
var Stdlib = []string{
	"how does the http server handle keep-alive connections",
	"where are tls certificates verified",
	"fix the json decoder error on unknown fields",
	"explain how goroutines are scheduled",
	"add a timeout to the dns resolver",
	"how is gzip compression implemented",
	"where does the regexp package compile patterns",
	"refactor the bufio scanner split functions",
	"how does sort.Slice choose pivots",
	"debug a deadlock in sync.WaitGroup",
}

// StdlibNovel are requests none of which repeats Stdlib or another: a
// warm daemon's per-request caches (a seed set's ranking, say) cannot
// answer them, so timing each once measures a request it has not seen.
var StdlibNovel = []string{
	"why does Server.Shutdown not wait for closeIdleConns in net/http",
	"how does the crypto/rand reader get entropy on linux",
	"where is the url query string parsed into values",
	"fix the race in the csv writer flush",
	"how does filepath.Walk handle symlinks",
	"explain the base64 encoding padding rules",
	"add context cancellation to the smtp client",
	"how are big.Int multiplications implemented",
	"where does time.Parse handle time zone abbreviations",
	"debug an EOF from the gob decoder",
	"how does the html template escaper decide the context",
	"refactor the flate huffman encoder tables",
	"where does os/exec look up the program path",
	"how does the net resolver read /etc/hosts",
	"explain the reflect.Value method call path",
	"how is the zip archive central directory read",
	"why does strconv.ParseFloat round this way",
	"where are http cookies serialized",
	"how does the image/png decoder handle interlacing",
	"add a limit to the multipart form reader memory",
	"how does context.WithTimeout stop its timer",
	"explain the unicode/utf8 decoding of invalid bytes",
	"where is the sha256 block function chosen for the cpu",
	"how does io.Copy pick WriterTo or ReaderFrom",
	"debug a leak of http response bodies in the client transport",
	"how are struct tags parsed in encoding/xml",
	"where does the log/slog text handler quote values",
	"how does the mime package detect content types",
	"explain the atomic.Value store and load",
	"where does the runtime set up signal handlers",
	"how does the tar reader handle sparse files",
	"why does the text/template range over maps sort keys",
	"how is the elliptic curve point doubling implemented",
	"where are tcp keep-alive options set on dial",
	"how does the go/parser recover from syntax errors",
	"explain how errors.Is unwraps joined errors",
	"where does bufio.Reader handle a too-long line",
	"how does the ring buffer in container/ring link elements",
	"fix the off-by-one in strings.Builder growth",
	"how does path.Clean handle dot-dot segments",
}
