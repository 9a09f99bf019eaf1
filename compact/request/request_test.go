package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/google/go-cmp/cmp"
)

// Bodies written the way clients send them: odd whitespace, unknown
// fields, escapes and number formats that a re-encoder would change.
const (
	chatBody = `{ "model" : "gpt-4o", "temperature": 1.50e0, "x_unknown": {"a":[1,2,{"b":null}]},
  "messages": [
    {"role": "system", "content": "You are \u0061 helper \ud83d\ude00"},
    {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}}]},
    {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}],"reasoning_content":"think"},
    {"role":"tool","tool_call_id":"call_1","content":"package a\n"},
    {"role":"assistant","content":"done",   "extra": true}
  ],
  "tools":[{"type":"function","function":{"name":"read_file","parameters":{}}}]
}
`
	anthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":1024,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],
"messages":[
 {"role":"user","content":"fix it"},
 {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"text","text":"reading"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a.go"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"package a"}]},{"type":"text","text":"go on"}]}
]}`
	responsesBody = `{"model":"gpt-5","previous_response_id":"resp_1","instructions":"Be brief.","store":false,
"input":[
 {"role":"user","content":"fix it"},
 {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"},
 {"type":"function_call","id":"fc_1","call_id":"call_1","name":"shell","arguments":"{\"cmd\":[\"ls\"]}"},
 {"type":"function_call_output","call_id":"call_1","output":"a.go\nb.go"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"two files","annotations":[]}]}
]}`
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Format
	}{
		{"chat", chatBody, FormatChat},
		{"anthropic", anthropicBody, FormatAnthropic},
		{"responses", responsesBody, FormatResponses},
		{"responses string input", `{"model":"gpt-5","input":"hi"}`, FormatResponses},
		{"plain chat", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`, FormatChat},
		{"plain claude", `{"model":"claude-3-5-sonnet","messages":[{"role":"user","content":"hi"}]}`, FormatAnthropic},
		{"anthropic by system", `{"system":"x","messages":[{"role":"user","content":"hi"}]}`, FormatAnthropic},
		{"chat by tool role", `{"model":"claude-x","messages":[{"role":"tool","tool_call_id":"a","content":"x"}]}`, FormatChat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"not json", `{"messages": [`},
		{"not object", `[1,2]`},
		{"no items", `{"model":"x"}`},
		{"messages not array", `{"messages":{}}`},
		{"empty", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body), "")
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Errorf("error %v does not wrap ErrInvalidParams", err)
			}
		})
	}
}

// TestRoundTrip: with no change, Emit returns the body byte for byte.
// mustParse parses body as a request of format f ("": detected), failing
// the test when it does not parse.
func mustParse(t testing.TB, body string, f Format) *Request {
	t.Helper()
	r, err := Parse([]byte(body), f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoundTrip(t *testing.T) {
	for _, body := range []string{chatBody, anthropicBody, responsesBody, `{"input":"hi \u00e9"}`, `{"messages":[]}`} {
		r := mustParse(t, body, "")
		out, err := r.NewPlan().Emit()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, []byte(body)) {
			t.Errorf("round trip changed the body:\n%s", cmp.Diff(body, string(out)))
		}
	}
}

func TestParseModel(t *testing.T) {
	type item struct {
		Role, Type string
		Kind       Kind
		Segs       []string // kind:class
		Calls      []string
		Results    []string
	}
	summarize := func(r *Request) []item {
		var out []item
		for _, it := range r.Items {
			x := item{Role: it.Role(), Type: it.Type(), Kind: it.Kind, Calls: it.Calls(), Results: it.Results()}
			for _, s := range it.Segments {
				x.Segs = append(x.Segs, s.Kind.String()+":"+s.Class.String())
			}
			out = append(out, x)
		}
		return out
	}
	tests := []struct {
		name string
		body string
		want []item
	}{
		{"chat", chatBody, []item{
			{Role: "system", Kind: KindMessage, Segs: []string{"text:critical_exact"}},
			{Role: "user", Kind: KindMessage, Segs: []string{"text:critical_exact", "image:lossless_transformable"}},
			{Role: "assistant", Kind: KindToolCall, Segs: []string{"reasoning:continuation_exact", "tool_call:protocol_exact"}, Calls: []string{"call_1"}},
			{Role: "tool", Kind: KindToolResult, Segs: []string{"tool_result:condensable"}, Results: []string{"call_1"}},
			{Role: "assistant", Kind: KindMessage, Segs: []string{"text:condensable"}},
		}},
		{"anthropic", anthropicBody, []item{
			{Role: "user", Kind: KindMessage, Segs: []string{"text:critical_exact"}},
			{Role: "assistant", Kind: KindToolCall, Segs: []string{"thinking:continuation_exact", "text:condensable", "tool_call:protocol_exact"}, Calls: []string{"toolu_1"}},
			{Role: "user", Kind: KindToolResult, Segs: []string{"tool_result:condensable", "text:critical_exact"}, Results: []string{"toolu_1"}},
		}},
		{"responses", responsesBody, []item{
			{Role: "user", Type: "message", Kind: KindMessage, Segs: []string{"text:critical_exact"}},
			{Type: "reasoning", Kind: KindReasoning, Segs: []string{"reasoning:continuation_exact", "redacted_thinking:continuation_exact"}},
			{Type: "function_call", Kind: KindToolCall, Segs: []string{"tool_call:protocol_exact"}, Calls: []string{"call_1"}},
			{Type: "function_call_output", Kind: KindToolResult, Segs: []string{"tool_result:condensable"}, Results: []string{"call_1"}},
			{Role: "assistant", Type: "message", Kind: KindMessage, Segs: []string{"text:condensable"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body, "")
			if d := cmp.Diff(tt.want, summarize(r)); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
		})
	}
}

func TestFixedParts(t *testing.T) {
	r := mustParse(t, anthropicBody, "")
	if len(r.Fixed) != 1 || r.Fixed[0].Text != "Be brief." || r.Fixed[0].Class != ClassCriticalExact {
		t.Errorf("Fixed = %+v, want the system text", r.Fixed)
	}
	r = mustParse(t, chatBody, "")
	if len(r.Fixed) != 1 || !strings.Contains(r.Fixed[0].Text, "read_file") {
		t.Errorf("Fixed = %+v, want the tools", r.Fixed)
	}
}

func TestPair(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		units   [][]int
		orphans []SegRef
		only    []int // orphan-only items
	}{
		{
			name:  "chat pairs",
			body:  chatBody,
			units: [][]int{{0}, {1}, {2, 3}, {4}},
		},
		{
			name: "chat unmatched, out of order, duplicate",
			body: `{"messages":[
				{"role":"user","content":"u"},
				{"role":"tool","tool_call_id":"b","content":"early b"},
				{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}},{"id":"c","type":"function","function":{"name":"h","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"a","content":"A"},
				{"role":"tool","tool_call_id":"zzz","content":"unmatched"},
				{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"a","content":"A again"}
			]}`,
			units:   [][]int{{0}, {1, 2, 3, 5, 6}, {4}},
			orphans: []SegRef{{2, 2}, {4, 0}},
			only:    []int{4},
		},
		{
			name: "anthropic pairs only with the previous assistant",
			body: `{"system":"s","messages":[
				{"role":"user","content":"u"},
				{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},
				{"role":"assistant","content":[{"type":"text","text":"x"}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"late"},{"type":"text","text":"and?"}]}
			]}`,
			units:   [][]int{{0}, {1, 2}, {3}, {4}},
			orphans: []SegRef{{4, 0}},
		},
		{
			name:  "responses reasoning joins the next item",
			body:  responsesBody,
			units: [][]int{{0}, {1, 2, 3}, {4}},
		},
		{
			name:    "responses orphan output",
			body:    `{"input":[{"role":"user","content":"u"},{"type":"function_call_output","call_id":"nope","output":"x"},{"type":"function_call","call_id":"c2","name":"f","arguments":"{}"}]}`,
			units:   [][]int{{0}, {1}, {2}},
			orphans: []SegRef{{1, 0}, {2, 0}},
			only:    []int{1, 2},
		},
		{
			name:  "legacy function call",
			body:  `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"r"},{"role":"function","name":"g","content":"stray"}]}`,
			units: [][]int{{0}, {1, 2}, {3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body, "")
			p := r.Pair()
			var units [][]int
			for u := range p.NumUnits() {
				var unit []int
				for _, i := range p.Unit(u) {
					unit = append(unit, int(i))
					if p.UnitOf(int(i)) != u {
						t.Errorf("UnitOf(%d) = %d, want %d", i, p.UnitOf(int(i)), u)
					}
				}
				units = append(units, unit)
			}
			if d := cmp.Diff(tt.units, units); d != "" {
				t.Errorf("units (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.orphans, p.Orphans); d != "" {
				t.Errorf("orphans (-want +got):\n%s", d)
			}
			var only []int
			for i, o := range p.OrphanOnly {
				if o {
					only = append(only, i)
				}
			}
			if d := cmp.Diff(tt.only, only); d != "" {
				t.Errorf("orphan-only items (-want +got):\n%s", d)
			}
		})
	}
}

func TestPlanEmit(t *testing.T) {
	tests := []struct {
		name string
		body string
		plan func(p *Plan)
		want string
	}{
		{
			name: "drop middle items keeps separators",
			body: "{\"messages\": [\n  {\"role\":\"user\",\"content\":\"a\"},\n  {\"role\":\"assistant\",\"content\":\"b\"},\n  {\"role\":\"user\",\"content\":\"c\"}\n]}",
			plan: func(p *Plan) { p.DropItem(1) },
			want: "{\"messages\": [\n  {\"role\":\"user\",\"content\":\"a\"},\n  {\"role\":\"user\",\"content\":\"c\"}\n]}",
		},
		{
			name: "drop first and last",
			body: `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`,
			plan: func(p *Plan) { p.DropItem(0); p.DropItem(2) },
			want: `{"messages":[{"role":"assistant","content":"b"}]}`,
		},
		{
			name: "insert where dropped items stood",
			body: `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`,
			plan: func(p *Plan) { p.DropItem(1); p.Insert(1, []byte(`{"role":"user","content":"S"}`)) },
			want: `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"S"},{"role":"user","content":"c"}]}`,
		},
		{
			name: "append after dropped tail",
			body: `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`,
			plan: func(p *Plan) { p.DropItem(1); p.Insert(1, []byte(`{"x":1}`)); p.Insert(2, []byte(`{"y":2}`)) },
			want: `{"messages":[{"role":"user","content":"a"},{"x":1},{"y":2}]}`,
		},
		{
			name: "insert into emptied array",
			body: `{"messages":[ {"a":1} ]}`,
			plan: func(p *Plan) { p.DropItem(0); p.Insert(0, []byte(`{"b":2}`)) },
			want: `{"messages":[ {"b":2} ]}`,
		},
		{
			name: "set text escapes",
			body: `{"messages":[{"role":"tool","tool_call_id":"x","content":"long"}]}`,
			plan: func(p *Plan) { p.SetText(SegRef{0, 0}, "a\"b\n<é>") },
			want: `{"messages":[{"role":"tool","tool_call_id":"x","content":"a\"b\n<é>"}]}`,
		},
		{
			name: "drop one tool call entry",
			body: `{"messages":[{"role":"assistant","content":"hi","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}, {"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}]}`,
			plan: func(p *Plan) { p.DropSegment(SegRef{0, 1}) },
			want: `{"messages":[{"role":"assistant","content":"hi","tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}]}`,
		},
		{
			name: "drop all tool calls drops the member",
			body: `{"messages":[{"role":"assistant","content":"hi", "tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}], "x":1}]}`,
			plan: func(p *Plan) { p.DropSegment(SegRef{0, 1}) },
			want: `{"messages":[{"role":"assistant","content":"hi", "x":1}]}`,
		},
		{
			name: "drop a block and rewrite another",
			body: `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"AAAA"},{"type":"tool_result","tool_use_id":"b","content":"BBBB"}]}]}`,
			plan: func(p *Plan) { p.DropSegment(SegRef{0, 0}); p.SetText(SegRef{0, 1}, "b") },
			want: `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"b"}]}]}`,
		},
		{
			// A removed block cannot be rewritten: SetText refuses it, so a
			// caller that counts the rewrite's savings does not count the
			// block's tokens twice (the FuzzCompress drift).
			name: "a dropped block refuses a rewrite",
			body: `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"AAAA"},{"type":"tool_result","tool_use_id":"b","content":"BBBB"}]}]}`,
			plan: func(p *Plan) {
				p.DropSegment(SegRef{0, 0})
				if p.SetText(SegRef{0, 0}, "a") {
					panic("SetText accepted a dropped segment")
				}
			},
			want: `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"BBBB"}]}]}`,
		},
		{
			name: "responses string input grows into an array",
			body: `{"input": "hi"}`,
			plan: func(p *Plan) { p.Insert(1, []byte(`{"role":"user","content":"note"}`)) },
			want: `{"input": [{"role":"user","content":"hi"},{"role":"user","content":"note"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body, "")
			p := r.NewPlan()
			tt.plan(p)
			out, err := p.Emit()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(out)); d != "" {
				t.Errorf("emit (-want +got):\n%s", d)
			}
			if !json.Valid(out) {
				t.Errorf("emit wrote invalid JSON: %s", out)
			}
		})
	}
}

func TestEncodeString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s\n\r\t\x01", "日本語 🙂", "bad \xff utf8", "\u2028\u2029", "<html>&"} {
		enc := encodeString(s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("encodeString(%q) = %s: %v", s, enc, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if got != want {
			t.Errorf("encodeString(%q) decodes to %q", s, got)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, body := range []string{chatBody, anthropicBody, responsesBody} {
		r := mustParse(t, body, "")
		if err := r.Check(); err != nil {
			t.Errorf("%s: %v", r.Format, err)
		}
	}
	r := mustParse(t, `{"messages":[{"role":"user","content":"u"},{"role":"tool","tool_call_id":"x","content":"r"}]}`, "")
	if err := r.Check(); !errors.Is(err, ErrUnpaired) {
		t.Errorf("Check = %v, want ErrUnpaired", err)
	}
}

// TestRetrievalMarker: a marker with the retrieval hints parses as the
// same marker without them, and says the command and the GET with the
// session and the hash prefix; a retrieval that cannot sit in a marker
// is refused by Check and left out by Marker.
func TestRetrievalMarker(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	plain := NewMarker(MarkerRef, hash, 120, 7, "omitted=2-6")
	tests := []struct {
		name string
		rt   Retrieval
		want string // the marker's tail; "" means plain
		bad  bool
	}{
		{"none", Retrieval{Session: "s1"}, "", false},
		{"no session", Retrieval{Command: true, URL: "http://127.0.0.1:1/ctxd/artifacts"}, "", false},
		{"command", Retrieval{Session: "s1", Command: true}, "of sha256=abababababababab, or run: ctxd rehydrate --session s1 abababababababab a-b]", false},
		{"state dir", Retrieval{Session: "s1", Command: true, StateDir: "/srv/state"}, ", or run: ctxd rehydrate --state-dir /srv/state --session s1 abababababababab a-b]", false},
		{"url", Retrieval{Session: "s1", URL: "http://127.0.0.1:8787/ctxd/artifacts/"}, "of sha256=abababababababab, or GET http://127.0.0.1:8787/ctxd/artifacts/s1/abababababababab?lines=a-b]", false},
		{"both", Retrieval{Session: "s1", Command: true, URL: "https://h/a"}, "a-b, or GET https://h/a/s1/abababababababab?lines=a-b]", false},
		{"ipv6 url", Retrieval{Session: "s1", Command: true, URL: "http://[::1]:8787/ctxd/artifacts"}, "", true},
		{"spaced dir", Retrieval{Session: "s1", Command: true, StateDir: "/a b"}, "", true},
		{"not http", Retrieval{Session: "s1", URL: "file:///x"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.rt.Check(); (err != nil) != tt.bad {
				t.Errorf("Check() = %v, want error %v", err, tt.bad)
			}
			m := tt.rt.Marker(MarkerRef, hash, 120, 7, "omitted=2-6")
			switch {
			case tt.want == "" && m != plain:
				t.Errorf("marker %q, want the plain %q", m, plain)
			case tt.want != "" && !strings.HasSuffix(m, tt.want):
				t.Errorf("marker %q does not end %q", m, tt.want)
			}
			got, want := ParseMarkers("x "+m+" y"), ParseMarkers(plain)
			if diff := cmp.Diff(want, got); diff != "" || len(got) != 1 {
				t.Errorf("parsed (-plain +hinted):\n%s", diff)
			}
		})
	}
}

// TestKnownStrings: the strings decodeString returns without allocating
// decode as themselves, and maxKnownLen lets every one of them through.
func TestKnownStrings(t *testing.T) {
	longest := 0
	for k, v := range known {
		if k != v {
			t.Errorf("known[%q] = %q", k, v)
		}
		got, err := decodeString([]byte(`"` + k + `"`))
		if err != nil || got != k {
			t.Errorf("decodeString(%q) = %q, %v", k, got, err)
		}
		longest = max(longest, len(k))
	}
	if longest != maxKnownLen {
		t.Errorf("maxKnownLen = %d, the longest known string has %d bytes", maxKnownLen, longest)
	}
	if n := testing.AllocsPerRun(100, func() { decodeString([]byte(`"assistant"`)) }); n != 0 {
		t.Errorf("decoding a known string allocated %v times", n)
	}
}

// TestTinyNotCached: a text or an item too small to be worth an entry is
// analyzed or counted again on every call, with the same result as a
// cached one, and leaves no entry behind (30,000 tiny messages would
// otherwise hold 16,384 entries each; issue 28).
func TestTinyNotCached(t *testing.T) {
	c := NewCache()
	tiny := "a.go:3: undefined: x"
	long := strings.Repeat("b.go:7: error: undefined: y\n", 20)
	for _, text := range []string{tiny, long} {
		in := c.Info(c.Key(text), text)
		if in.Hash != HashText(text) || len(in.Signals) == 0 {
			t.Errorf("Info(%d bytes): hash %q, signals %q", len(text), in.Hash, in.Signals)
		}
	}
	if n := c.infos.Len(); n != 1 {
		t.Errorf("the cache holds %d analyses, want 1 (the long text's)", n)
	}

	e := NewEstimator(lenCounter{}, ImageOpenAI)
	small := []byte(`{"role":"user","content":"message 1 says a few words"}`)
	big := []byte(`{"role":"user","content":"` + strings.Repeat("word ", 100) + `"}`)
	for _, raw := range [][]byte{small, big} {
		it, err := ParseItem(FormatChat, raw)
		if err != nil {
			t.Fatal(err)
		}
		want := MessageOverhead + e.Text("user") + e.Text(it.Segments[0].Text)
		for range 2 { // counted, then counted again or from the cache
			if got := e.Item(it); got != want || int(it.Segments[0].Tokens) != want-MessageOverhead-e.Text("user") {
				t.Errorf("Item(%d bytes) = %d (segment %d), want %d", len(raw), got, it.Segments[0].Tokens, want)
			}
		}
	}
	if n := e.cache.Len(); n != 1 {
		t.Errorf("the estimator holds %d items, want 1 (the big one's)", n)
	}
}

// TestTinyMessageBytes bounds what parsing costs per tiny message (issue
// 28: 30,000 messages of ~67 bytes; 208+176 bytes of item and segment
// before the compact model, 128+104 next, 64+48 after that (roles,
// types, raw bytes, names and call ids out of line or numbers, spans of
// 32 bits), 48+40 now (no position, the item's out-of-line part in a
// table of the request, token counts and the array index of 32 bits),
// plus its pointer; 177 bytes in all with a copy of its text, 145 since
// a text without escapes is a view of the body, 120 now): a field added
// to Item or Segment, or a text copied again, shows here first.
func TestTinyMessageBytes(t *testing.T) {
	const n = 10000
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-4o","messages":[{"role":"system","content":"You are helpful."}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"role":"user","content":"message %d says a few words"}`, i)
	}
	b.WriteString("]}")
	body := b.Bytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Parse(body, FormatChat)
	runtime.ReadMemStats(&after)
	if err != nil || len(r.Items) != n+1 {
		t.Fatalf("parse: %v, %d items", err, len(r.Items))
	}
	const maxPerMessage = 128
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > maxPerMessage {
		t.Errorf("parsing allocated %d bytes a message, want at most %d", per, maxPerMessage)
	} else {
		t.Logf("%d bytes a message", per)
	}
}

// TestCheckSize: spans are offsets of 32 bits, so a body over 4 GiB is
// refused.
func TestCheckSize(t *testing.T) {
	if strconv.IntSize == 32 {
		t.Skip("no length over 4 GiB on a 32-bit platform")
	}
	n := uint64(maxBody)
	if err := checkSize(int(n + 1)); !errors.Is(err, ErrNotRequest) {
		t.Errorf("a body of %d bytes: %v, want ErrNotRequest", n+1, err)
	}
	if err := checkSize(int(n)); err != nil {
		t.Errorf("a body of %d bytes: %v, want nil", n, err)
	}
}

// BenchmarkParseManySmall parses the chat request of
// scripts/proxy-mem.py's SHAPE=many: 30,000 tiny messages (issue 28):
//
//	go test -run '^$' -bench ParseManySmall -benchmem ./compact/request
func BenchmarkParseManySmall(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful. 0"}`)
	for i := range 30000 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&buf, `, {"role": %q, "content": "message %d says a few words"}`, role, i)
	}
	buf.WriteString("]}")
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body, FormatChat); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRoleAndTypeNames: roles and Responses types are numbers for the
// names in the tables and kept out of line for any other (issue 28).
func TestRoleAndTypeNames(t *testing.T) {
	tests := []struct {
		name, body string
		f          Format
		role, typ  string
	}{
		{"chat user", `{"messages":[{"role":"user","content":"hi"}]}`, FormatChat, "user", ""},
		{"chat role not in the table", `{"messages":[{"role":"critic","content":"hi"}]}`, FormatChat, "critic", ""},
		{"responses call", `{"input":[{"type":"function_call","call_id":"c","name":"ls","arguments":"{}"}]}`, FormatResponses, "", "function_call"},
		{"responses type not in the table", `{"input":[{"type":"web_search_call","id":"w"}]}`, FormatResponses, "", "web_search_call"},
		{"responses message by role", `{"input":[{"role":"developer","content":"be brief"}]}`, FormatResponses, "developer", "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body, tt.f)
			it := r.Items[0]
			if it.Role() != tt.role || it.Type() != tt.typ {
				t.Errorf("role %q type %q, want %q %q", it.Role(), it.Type(), tt.role, tt.typ)
			}
			if string(it.Raw()) != tt.body[strings.IndexByte(tt.body, '[')+1:len(tt.body)-2] {
				t.Errorf("raw %q", it.Raw())
			}
		})
	}
}
