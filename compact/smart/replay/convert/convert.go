// Package convert turns real agent trajectories into replay sessions
// (package replay's corpus format) in the three wire formats, so both
// compactors can be measured on what agents actually send. It reads
// SWE-agent trajectories (*.traj: a JSON object whose "history" is the
// model's message list, with either function-calling tool calls or
// SWE-agent's own "action" commands answered by observation messages)
// and mini-SWE-agent trajectories (*.traj.json: "messages" in OpenAI Chat
// shape, tool messages naming their call by "tool_call_id", a final
// "exit" entry; or, without tool calls, one ```bash block per assistant
// message answered by the next user message).
//
// Every assistant message starts a new request: the request is the
// conversation before it, as the agent sent it. An action without a
// tool call becomes a tool call (name: the command's first word;
// arguments: {"command": ACTION}) and the observation that answers it its
// result, so the tool-pair rules of each format apply. Each turn also
// lists, as Needs, the critical signals (error lines, failing tests,
// path:line locations; compact/signal) of the outputs the previous turn
// added: what the model needs to answer the turn.
//
// scripts/convert-trajectories drives it; the full corpus stays outside
// the repository (docs/compaction.md, BENCHMARKS.md).
package convert

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/compact/smart/replay"
)

// maxNeeds caps the facts a turn lists.
const maxNeeds = 8

// message is one history entry of a SWE-agent trajectory.
type message struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	Action      string          `json:"action"`
	ToolCalls   []toolCall      `json:"tool_calls"`
	ToolCallIDs []string        `json:"tool_call_ids"`
	ToolCallID  string          `json:"tool_call_id"`
	IsDemo      bool            `json:"is_demo"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Trajectory is a parsed trajectory: its messages as a format-neutral
// conversation, and the index of each assistant message (a turn starts
// at each).
type Trajectory struct {
	Msgs  []convo.Msg
	turns []int
}

// Parse reads a SWE-agent or mini-SWE-agent trajectory.
func Parse(r io.Reader) (*Trajectory, error) {
	var raw struct {
		History  []message `json:"history"`
		Messages []message `json:"messages"`
	}
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("parse trajectory: %w: %w", err, ctxd.ErrInvalidParams)
	}
	history, mini := raw.History, false
	if len(history) == 0 {
		history, mini = raw.Messages, true
	}
	if len(history) == 0 {
		return nil, fmt.Errorf("parse trajectory: no history: %w", ctxd.ErrInvalidParams)
	}
	t := &Trajectory{}
	pending := "" // call id of an action awaiting its observation
	n := 0
	for _, m := range history {
		text, err := contentText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("parse trajectory: message %d: %w", n, err)
		}
		n++
		if mini && m.Role == "assistant" && len(m.ToolCalls) == 0 && m.Action == "" {
			m.Action = bashBlock(text)
		}
		switch m.Role {
		case "exit":
			// mini-SWE-agent's record of how the run ended (the
			// submission): never sent to the model.
			continue
		case "system":
			if len(t.Msgs) == 0 {
				t.Msgs = append(t.Msgs, convo.System(text))
			} else {
				t.Msgs = append(t.Msgs, convo.User(text))
			}
		case "assistant":
			t.turns = append(t.turns, len(t.Msgs))
			a := convo.Assistant(text)
			switch {
			case len(m.ToolCalls) > 0:
				for _, c := range m.ToolCalls {
					args := c.Function.Arguments
					if !json.Valid([]byte(args)) {
						b, _ := json.Marshal(map[string]string{"raw": args})
						args = string(b)
					}
					a.Calls = append(a.Calls, convo.Call{ID: c.ID, Name: c.Function.Name, Args: args})
				}
			case strings.TrimSpace(m.Action) != "":
				pending = fmt.Sprintf("call_%d", len(t.turns))
				b, _ := json.Marshal(map[string]string{"command": strings.TrimSpace(m.Action)})
				a.Calls = []convo.Call{{ID: pending, Name: commandName(m.Action), Args: string(b)}}
				// The action is the call; the text is the thought.
				a.Text = text
				for _, fence := range []string{"```\n", "```bash\n"} {
					a.Text = strings.Replace(a.Text, fence+strings.TrimSpace(m.Action)+"\n```", "", 1)
				}
				a.Text = strings.TrimSpace(a.Text)
			}
			t.Msgs = append(t.Msgs, a)
		case "tool":
			id := m.ToolCallID
			if len(m.ToolCallIDs) > 0 {
				id = m.ToolCallIDs[0]
			}
			if id == "" {
				return nil, fmt.Errorf("parse trajectory: message %d: tool message without a call id: %w", n-1, ctxd.ErrInvalidParams)
			}
			t.Msgs = append(t.Msgs, convo.Tool(id, "", text, false))
		default: // user
			if pending != "" && !m.IsDemo {
				t.Msgs = append(t.Msgs, convo.Tool(pending, "", text, false))
				pending = ""
				continue
			}
			t.Msgs = append(t.Msgs, convo.User(text))
		}
	}
	if len(t.turns) == 0 {
		return nil, fmt.Errorf("parse trajectory: no assistant message: %w", ctxd.ErrInvalidParams)
	}
	// Calls never answered (the run ended) are dropped with their
	// message's calls: every call in a request has its result.
	answered := map[string]bool{}
	for _, m := range t.Msgs {
		if m.Result != nil {
			answered[m.Result.CallID] = true
		}
	}
	for i := range t.Msgs {
		var calls []convo.Call
		for _, c := range t.Msgs[i].Calls {
			if answered[c.ID] {
				calls = append(calls, c)
			}
		}
		t.Msgs[i].Calls = calls
	}
	return t, nil
}

// contentText reads a message content: a string, or a list of
// {"type":"text","text":...} parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor text parts: %w", ctxd.ErrInvalidParams)
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	return sb.String(), nil
}

// bashBlock is the command of a mini-SWE-agent reply without tool calls:
// its one ```bash fenced block ("" when it has none).
func bashBlock(text string) string {
	const open = "```bash\n"
	i := strings.Index(text, open)
	if i < 0 {
		return ""
	}
	rest := text[i+len(open):]
	j := strings.Index(rest, "\n```")
	if j < 0 {
		return ""
	}
	return strings.TrimSpace(rest[:j])
}

// commandName is an action's tool name: its first word, as SWE-agent
// dispatches it ("open", "edit", "python", "pytest", ...).
func commandName(action string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return "bash"
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, f[0])
	if name == "" {
		return "bash"
	}
	return name
}

// Session renders the trajectory as a replay session in format f for a
// model and a context window (0: the model's registry window).
func (t *Trajectory) Session(name string, f request.Format, model string, window int) (*replay.Session, error) {
	_, top := convo.Items(f, t.Msgs[:1])
	top["model"] = model
	topRaw, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	s := &replay.Session{
		Name: name, Description: "converted agent trajectory", Format: f, Model: model, ContextWindow: window,
		SessionID: sessionID(name, f, window), Top: topRaw, Tags: []string{"trajectory"},
	}
	start := 0
	for k, end := range t.turns {
		// The first chunk opens with the system message: an item in
		// Chat, a top-level member (already in Top) in the others.
		items, _ := convo.Items(f, t.Msgs[start:end])
		turn := replay.Turn{Append: items}
		if k > 0 {
			turn.Needs = needs(t.Msgs[start:end])
		}
		s.Turns = append(s.Turns, turn)
		start = end
	}
	return s, nil
}

// needs are the critical signals of the tool outputs among msgs.
func needs(msgs []convo.Msg) []string {
	var out []string
	for _, m := range msgs {
		if m.Result == nil {
			continue
		}
		for _, sig := range signal.Signals(m.Result.Text) {
			if len(out) < maxNeeds && !strings.ContainsAny(sig, "\r") {
				out = append(out, sig)
			}
		}
	}
	return out
}

func sessionID(name string, f request.Format, window int) string {
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, fmt.Sprintf("%s-%s-%d", name, f, window))
	if len(id) > 120 {
		id = id[len(id)-120:]
	}
	return strings.TrimLeft(id, "-._")
}

// Chain joins trajectories into one long conversation, as an agent that
// works through several tasks of one repository in one session would
// send it: the first trajectory's system message, then every message of
// each in order (a later trajectory's opening system message is dropped:
// the session has one system prompt; its task is the user message that
// follows), call ids prefixed by the trajectory's position so they stay
// unique. Long real sessions are scarce; chained ones are the
// development corpus of the turn-by-turn replay.
func Chain(ts ...*Trajectory) *Trajectory {
	out := &Trajectory{}
	for k, t := range ts {
		prefix := fmt.Sprintf("t%d_", k)
		for i, m := range t.Msgs {
			if k > 0 && i == 0 && m.Role == "system" {
				continue
			}
			if len(m.Calls) > 0 {
				calls := make([]convo.Call, len(m.Calls))
				for j, c := range m.Calls {
					c.ID = prefix + c.ID
					calls[j] = c
				}
				m.Calls = calls
			}
			if m.Result != nil {
				r := *m.Result
				r.CallID = prefix + r.CallID
				m.Result = &r
			}
			if m.Role == "assistant" {
				out.turns = append(out.turns, len(out.Msgs))
			}
			out.Msgs = append(out.Msgs, m)
		}
	}
	return out
}

// Turns is the number of requests the trajectory makes (one per
// assistant message).
func (t *Trajectory) Turns() int { return len(t.turns) }
