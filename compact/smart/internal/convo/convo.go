// Package convo renders a format-neutral agent conversation as a request
// body in each of the three wire formats package request reads. Tests
// and the replay corpus generator use it to build the same conversation
// in every format.
package convo

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/compact/request"
)

// Msg is one message of a conversation.
type Msg struct {
	// Role is system, user, assistant or tool.
	Role string `json:"role"`
	Text string `json:"text,omitempty"`
	// Calls are the tool calls of an assistant message.
	Calls []Call `json:"calls,omitempty"`
	// Result is the result a tool message carries.
	Result *Result `json:"result,omitempty"`
}

// Call is one tool call.
type Call struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Args is a JSON object.
	Args string `json:"args"`
}

// Result is one tool result.
type Result struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error,omitempty"`
}

// System returns a system message.
func System(text string) Msg { return Msg{Role: "system", Text: text} }

// User returns a user message.
func User(text string) Msg { return Msg{Role: "user", Text: text} }

// Assistant returns an assistant message with optional calls.
func Assistant(text string, calls ...Call) Msg {
	return Msg{Role: "assistant", Text: text, Calls: calls}
}

// Tool returns a tool message answering call id.
func Tool(id, name, text string, isError bool) Msg {
	return Msg{Role: "tool", Result: &Result{CallID: id, Name: name, Text: text, IsError: isError}}
}

// Items renders msgs as the items of a request in format f, and the
// top-level members the format keeps outside its items (Anthropic's
// system, Responses' instructions) for a leading system message.
// Anthropic tool results following one assistant message share one user
// message, as the API requires.
func Items(f request.Format, msgs []Msg) (items []json.RawMessage, top map[string]any) {
	top = map[string]any{}
	i := 0
	if len(msgs) > 0 && msgs[0].Role == "system" {
		switch f {
		case request.FormatAnthropic:
			top["system"] = msgs[0].Text
			i = 1
		case request.FormatResponses:
			top["instructions"] = msgs[0].Text
			i = 1
		}
	}
	for ; i < len(msgs); i++ {
		m := msgs[i]
		switch f {
		case request.FormatChat:
			items = append(items, chatItem(m))
		case request.FormatAnthropic:
			if m.Role == "tool" {
				var blocks []any
				for ; i < len(msgs) && msgs[i].Role == "tool"; i++ {
					blocks = append(blocks, anthropicResult(msgs[i].Result))
				}
				i--
				items = append(items, raw(map[string]any{"role": "user", "content": blocks}))
				continue
			}
			items = append(items, anthropicItem(m))
		case request.FormatResponses:
			items = append(items, responsesItems(m)...)
		}
	}
	return items, top
}

// Body renders a whole request: top-level members (model and the
// format's own) and the items.
func Body(f request.Format, model string, msgs []Msg, extra map[string]any) []byte {
	items, top := Items(f, msgs)
	top["model"] = model
	for k, v := range extra {
		top[k] = v
	}
	key := "messages"
	if f == request.FormatResponses {
		key = "input"
	}
	top[key] = items
	return raw(top)
}

func raw(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("convo: encode: %v", err))
	}
	return bytes.TrimSpace(buf.Bytes())
}

func args(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return map[string]any{"raw": s}
	}
	return v
}

func chatItem(m Msg) json.RawMessage {
	switch m.Role {
	case "tool":
		return raw(map[string]any{"role": "tool", "tool_call_id": m.Result.CallID, "content": m.Result.Text})
	case "assistant":
		o := map[string]any{"role": "assistant", "content": nil}
		if m.Text != "" {
			o["content"] = m.Text
		}
		if len(m.Calls) > 0 {
			var calls []any
			for _, c := range m.Calls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
			}
			o["tool_calls"] = calls
		}
		return raw(o)
	}
	return raw(map[string]any{"role": m.Role, "content": m.Text})
}

func anthropicResult(r *Result) any {
	b := map[string]any{"type": "tool_result", "tool_use_id": r.CallID, "content": r.Text}
	if r.IsError {
		b["is_error"] = true
	}
	return b
}

func anthropicItem(m Msg) json.RawMessage {
	if m.Role == "assistant" && len(m.Calls) > 0 {
		var blocks []any
		if m.Text != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": m.Text})
		}
		for _, c := range m.Calls {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": args(c.Args)})
		}
		return raw(map[string]any{"role": "assistant", "content": blocks})
	}
	role := m.Role
	if role == "system" {
		role = "user" // a later system message: Anthropic has no such role
	}
	return raw(map[string]any{"role": role, "content": m.Text})
}

func responsesItems(m Msg) []json.RawMessage {
	switch m.Role {
	case "tool":
		return []json.RawMessage{raw(map[string]any{"type": "function_call_output", "call_id": m.Result.CallID, "output": m.Result.Text})}
	case "assistant":
		var out []json.RawMessage
		if m.Text != "" {
			out = append(out, raw(map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": m.Text}}}))
		}
		for _, c := range m.Calls {
			out = append(out, raw(map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Name, "arguments": c.Args}))
		}
		return out
	case "system":
		return []json.RawMessage{raw(map[string]any{"type": "message", "role": "developer", "content": m.Text})}
	}
	return []json.RawMessage{raw(map[string]any{"type": "message", "role": m.Role, "content": []any{map[string]any{"type": "input_text", "text": m.Text}}})}
}
