package prune

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
)

// turn is one message of an abstract conversation, rendered into each
// wire format by render.
type turn struct {
	role      string // system, user, assistant, tool
	text      string
	calls     []call // assistant
	id        string // tool: the call answered
	name      string // tool: the tool's name
	isError   bool   // tool
	images    int    // user: image parts
	reasoning string // assistant
}

type call struct {
	id, name, args string
}

// conv is an abstract conversation.
type conv []turn

func jsonStr(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// tinyPNG is a real 64x32 PNG (base64), so image dimensions are read.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAgCAIAAAAt/+nTAAAAKklEQVR4nO3OMQEAAAjDMMC/52ECvlRA01vbpHwHAAAAAAAAAAAAAAAAXHmsUgE/DTsImwAAAABJRU5ErkJggg=="

func render(f request.Format, model string, c conv) []byte {
	switch f {
	case request.FormatAnthropic:
		return renderAnthropic(model, c)
	case request.FormatResponses:
		return renderResponses(model, c)
	}
	return renderChat(model, c)
}

func renderChat(model string, c conv) []byte {
	var items []string
	for _, t := range c {
		switch t.role {
		case "system":
			items = append(items, `{"role":"system","content":`+jsonStr(t.text)+`}`)
		case "user":
			if t.images == 0 {
				items = append(items, `{"role":"user","content":`+jsonStr(t.text)+`}`)
				continue
			}
			parts := []string{`{"type":"text","text":` + jsonStr(t.text) + `}`}
			for i := range t.images {
				if i%2 == 0 {
					parts = append(parts, `{"type":"image_url","image_url":{"url":"data:image/png;base64,`+tinyPNG+`","detail":"high"}}`)
				} else {
					parts = append(parts, `{"type":"image_url","image_url":{"url":"https://example.com/shot.png"}}`)
				}
			}
			items = append(items, `{"role":"user","content":[`+strings.Join(parts, ",")+`]}`)
		case "assistant":
			s := `{"role":"assistant","content":`
			if t.text == "" {
				s += "null"
			} else {
				s += jsonStr(t.text)
			}
			if t.reasoning != "" {
				s += `,"reasoning_content":` + jsonStr(t.reasoning)
			}
			if len(t.calls) > 0 {
				var cs []string
				for _, cl := range t.calls {
					cs = append(cs, `{"id":`+jsonStr(cl.id)+`,"type":"function","function":{"name":`+jsonStr(cl.name)+`,"arguments":`+jsonStr(cl.args)+`}}`)
				}
				s += `,"tool_calls":[` + strings.Join(cs, ",") + `]`
			}
			items = append(items, s+`}`)
		case "tool":
			items = append(items, `{"role":"tool","tool_call_id":`+jsonStr(t.id)+`,"content":`+jsonStr(t.text)+`}`)
		}
	}
	return []byte(`{"model":` + jsonStr(model) + `,"temperature":0.2,"x_client":{"v":1},"messages":[` + "\n  " + strings.Join(items, ",\n  ") + "\n]}")
}

func renderAnthropic(model string, c conv) []byte {
	var system string
	var items []string
	var results []string
	flush := func() {
		if len(results) > 0 {
			items = append(items, `{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
			results = nil
		}
	}
	for i, t := range c {
		if t.role != "tool" {
			flush()
		}
		switch t.role {
		case "system":
			if i == 0 {
				system = t.text
				continue
			}
			items = append(items, `{"role":"user","content":`+jsonStr("<system-reminder>"+t.text+"</system-reminder>")+`}`)
		case "user":
			if t.images == 0 {
				items = append(items, `{"role":"user","content":`+jsonStr(t.text)+`}`)
				continue
			}
			var parts []string
			for range t.images {
				parts = append(parts, `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+tinyPNG+`"}}`)
			}
			parts = append(parts, `{"type":"text","text":`+jsonStr(t.text)+`}`)
			items = append(items, `{"role":"user","content":[`+strings.Join(parts, ",")+`]}`)
		case "assistant":
			var blocks []string
			if t.reasoning != "" {
				blocks = append(blocks, `{"type":"thinking","thinking":`+jsonStr(t.reasoning)+`,"signature":"EqQBCkYIARgCIkBzaWc="}`)
			}
			if t.text != "" {
				blocks = append(blocks, `{"type":"text","text":`+jsonStr(t.text)+`}`)
			}
			for _, cl := range t.calls {
				args := cl.args
				if !json.Valid([]byte(args)) || !strings.HasPrefix(args, "{") {
					args = `{"raw":` + jsonStr(args) + `}`
				}
				blocks = append(blocks, `{"type":"tool_use","id":`+jsonStr(cl.id)+`,"name":`+jsonStr(cl.name)+`,"input":`+args+`}`)
			}
			if len(blocks) == 0 {
				blocks = append(blocks, `{"type":"text","text":"ok"}`)
			}
			items = append(items, `{"role":"assistant","content":[`+strings.Join(blocks, ",")+`]}`)
		case "tool":
			b := `{"type":"tool_result","tool_use_id":` + jsonStr(t.id) + `,"content":` + jsonStr(t.text)
			if t.isError {
				b += `,"is_error":true`
			}
			results = append(results, b+`}`)
		}
	}
	flush()
	s := `{"model":` + jsonStr(model) + `,"max_tokens":4096,`
	if system != "" {
		s += `"system":` + jsonStr(system) + `,`
	}
	return []byte(s + `"messages":[` + "\n  " + strings.Join(items, ",\n  ") + "\n]}")
}

func renderResponses(model string, c conv) []byte {
	var items []string
	for i, t := range c {
		switch t.role {
		case "system":
			items = append(items, `{"role":"system","content":`+jsonStr(t.text)+`}`)
		case "user":
			parts := []string{`{"type":"input_text","text":` + jsonStr(t.text) + `}`}
			for range t.images {
				parts = append(parts, `{"type":"input_image","image_url":"data:image/png;base64,`+tinyPNG+`","detail":"auto"}`)
			}
			items = append(items, `{"role":"user","content":[`+strings.Join(parts, ",")+`]}`)
		case "assistant":
			if t.reasoning != "" {
				items = append(items, fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":%s}],"encrypted_content":"gAAAAB"}`, i, jsonStr(t.reasoning)))
			}
			if t.text != "" {
				items = append(items, fmt.Sprintf(`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, i, jsonStr(t.text)))
			}
			for _, cl := range t.calls {
				items = append(items, `{"type":"function_call","call_id":`+jsonStr(cl.id)+`,"name":`+jsonStr(cl.name)+`,"arguments":`+jsonStr(cl.args)+`}`)
			}
		case "tool":
			items = append(items, `{"type":"function_call_output","call_id":`+jsonStr(t.id)+`,"output":`+jsonStr(t.text)+`}`)
		}
	}
	return []byte(`{"model":` + jsonStr(model) + `,"store":false,"previous_response_id":"resp_abc","input":[` + "\n  " + strings.Join(items, ",\n  ") + "\n]}")
}

// Text samples for generated histories.
var (
	proseWords = strings.Fields("the quick brown fox jumps over the lazy dog while we refactor the parser and check every edge case before shipping it to production next week")
	toolNames  = []string{"read_file", "grep", "list_dir", "write_file", "edit_file", "bash", "run_tests"}
)

func prose(rng *rand.Rand, words int) string {
	var sb strings.Builder
	for i := range words {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(proseWords[rng.IntN(len(proseWords))])
	}
	return sb.String()
}

// toolOutput is tool output of about n bytes: code-like lines, CJK and
// emoji now and then, and a traceback when failing.
func toolOutput(rng *rand.Rand, n int, failing bool) string {
	var sb strings.Builder
	line := 0
	for sb.Len() < n {
		line++
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&sb, "%4d\tfunc handler%d(ctx context.Context) error { return nil }\n", line, line)
		case 1:
			fmt.Fprintf(&sb, "%4d\t// 注释：处理请求 %d 🙂\n", line, line)
		case 2:
			fmt.Fprintf(&sb, "%4d\t{\"id\": %d, \"ok\": true, \"tags\": [\"a\", \"b\"]}\n", line, line)
		default:
			fmt.Fprintf(&sb, "%4d\t%s\n", line, prose(rng, 8))
		}
	}
	if failing {
		sb.WriteString("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nValueError: invalid input\n")
	}
	return sb.String()
}

// genConv builds a random valid agent history: a system prompt, a first
// user request, then rounds of assistant tool calls with their results,
// assistant chatter and further user turns, ending with a user turn.
func genConv(rng *rand.Rand, rounds, outBytes int) conv {
	c := conv{{role: "system", text: "You are a careful coding agent. " + prose(rng, 20)}, {role: "user", text: "Please fix the failing test in parser.go. " + prose(rng, 10)}}
	id := 0
	for r := range rounds {
		switch rng.IntN(7) {
		case 0:
			c = append(c, turn{role: "assistant", text: "I'll check the parser first. " + prose(rng, 12)})
		case 1:
			c = append(c, turn{role: "user", text: prose(rng, 10), images: rng.IntN(2)})
		case 2:
			if r > 0 {
				c = append(c, turn{role: "system", text: "Note: the test suite changed. " + prose(rng, 5)})
			}
		default:
			k := 1 + rng.IntN(3)
			a := turn{role: "assistant", text: "", reasoning: ""}
			if rng.IntN(3) == 0 {
				a.reasoning = "Thinking about " + prose(rng, 6)
			}
			if rng.IntN(2) == 0 {
				a.text = "Let me look. " + prose(rng, 5)
			}
			var results []turn
			for range k {
				id++
				name := toolNames[rng.IntN(len(toolNames))]
				args := fmt.Sprintf(`{"path":"pkg/file%d.go"}`, rng.IntN(20))
				if name == "bash" || name == "run_tests" {
					args = fmt.Sprintf(`{"command":"go test ./pkg/%d/..."}`, rng.IntN(5))
				}
				cid := fmt.Sprintf("call_%03d", id)
				a.calls = append(a.calls, call{id: cid, name: name, args: args})
				failing := rng.IntN(5) == 0
				results = append(results, turn{role: "tool", id: cid, name: name, text: toolOutput(rng, outBytes/2+rng.IntN(outBytes+1), failing), isError: failing})
			}
			if rng.IntN(2) == 0 { // results out of order
				rng.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
			}
			c = append(c, a)
			c = append(c, results...)
		}
	}
	return append(c, turn{role: "user", text: "Now run the tests again and tell me what fails. " + prose(rng, 6)})
}
