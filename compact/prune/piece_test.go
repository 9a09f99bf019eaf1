package prune

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
)

// fmtPiece is EvictedPiece as it was written with fmt: the stored span's
// bytes must not move (a span's hash is its reference).
func fmtPiece(i int, it *request.Item) string {
	var sb strings.Builder
	role := it.Role()
	if role == "" {
		role = it.Kind.String()
	}
	fmt.Fprintf(&sb, "=== message %d (%s) ===\n", i, role)
	for j := range it.Segments {
		s := &it.Segments[j]
		switch s.Kind {
		case request.SegToolCall:
			fmt.Fprintf(&sb, "[tool call %s %s]\n%s\n", s.CallID(), s.Name(), s.Text)
		case request.SegToolResult:
			fmt.Fprintf(&sb, "[tool result %s]\n%s\n", s.CallID(), s.Text)
		case request.SegImage:
			sb.WriteString("[image]\n")
		default:
			if s.Text != "" {
				sb.WriteString(s.Text)
				sb.WriteByte('\n')
			}
		}
	}
	return sb.String()
}

func TestEvictedPieceBytes(t *testing.T) {
	big := strings.Repeat("line of output %d %s\n", 5000)
	for _, tc := range []struct {
		name string
		i    int
		it   *request.Item
	}{
		{"text", 0, request.NewItem("user", request.KindMessage, request.Segment{Kind: request.SegText, Text: "hello\nworld"})},
		{"empty text", 3, request.NewItem("assistant", request.KindMessage, request.Segment{Kind: request.SegText})},
		{"no role", 12, request.NewItem("", request.KindSummary, request.Segment{Kind: request.SegText, Text: "sum"})},
		{"call and result", 7, request.NewItem("assistant", request.KindMessage, []request.Segment{
			{Kind: request.SegText, Text: "running"},
			*request.NewSegment(request.SegToolCall, "bash", "call_1", `{"cmd":"ls %s"}`),
			*request.NewSegment(request.SegToolResult, "", "call_1", big),
			{Kind: request.SegImage},
			{Kind: request.SegToolResult, Text: ""},
		}...)},
		{"utf-8 and percent", 1000000, request.NewItem("tool", request.KindMessage, *request.NewSegment(request.SegToolResult, "", "é%v", "naïve %d\x00"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := fmtPiece(tc.i, tc.it)
			if got := EvictedPiece(tc.i, tc.it); got != want {
				t.Errorf("EvictedPiece:\n%q\nwant\n%q", got, want)
			}
			if n := EvictedPieceLen(tc.i, tc.it); n != len(want) {
				t.Errorf("EvictedPieceLen = %d, want %d", n, len(want))
			}
		})
	}
}
