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
