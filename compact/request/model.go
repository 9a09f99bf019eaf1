package request

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
)

// Format is a model request's wire format.
type Format string

// The wire formats Parse reads.
const (
	// FormatChat is OpenAI Chat Completions: "messages" with roles system,
	// developer, user, assistant (tool_calls), tool (tool_call_id) and the
	// legacy function.
	FormatChat Format = "openai-chat"
	// FormatAnthropic is Anthropic Messages: top-level "system" and
	// "messages" of content blocks (tool_use, tool_result, thinking).
	FormatAnthropic Format = "anthropic-messages"
	// FormatResponses is OpenAI Responses: "input" as a string or an array
	// of typed items (message, function_call, function_call_output,
	// reasoning, ...).
	FormatResponses Format = "openai-responses"
)

// Formats lists the formats in a stable order.
var Formats = []Format{FormatChat, FormatAnthropic, FormatResponses}

// ParseFormat reads a format name as given by a user. "" and "auto" return
// "" (detect from the body); short names "chat", "openai", "anthropic",
// "messages" and "responses" are accepted.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return "", nil
	case "chat", "openai", "openai-chat", "chat-completions":
		return FormatChat, nil
	case "anthropic", "messages", "anthropic-messages":
		return FormatAnthropic, nil
	case "responses", "openai-responses":
		return FormatResponses, nil
	}
	return "", fmt.Errorf("unknown request format %q (want chat, anthropic, responses or auto): %w", s, ctxd.ErrInvalidParams)
}

// ErrNotRequest reports a body that is valid JSON but none of the request
// formats (no "messages" or "input" member). It wraps
// [ctxd.ErrInvalidParams].
var ErrNotRequest = fmt.Errorf("not a chat, anthropic or responses request: %w", ctxd.ErrInvalidParams)

// Kind is an item's part in the conversation. It is a small number (an
// item of a request of many tiny messages is paid per message); its
// text is its name ([Kind.String], and in JSON).
type Kind uint8

// The item kinds.
const (
	// KindMessage is a plain message: text, images, refusals.
	KindMessage Kind = iota
	// KindToolCall is an item that issues tool calls (an assistant message
	// with tool_calls or tool_use blocks, a Responses function_call).
	KindToolCall
	// KindToolResult is an item that answers tool calls (a tool message, a
	// user message with tool_result blocks, a function_call_output).
	KindToolResult
	// KindReasoning is a Responses reasoning item.
	KindReasoning
	// KindSummary is a summary ctxd inserted for evicted items earlier.
	KindSummary
	// KindOther is an item type ctxd does not interpret (web_search_call,
	// item_reference...); it passes through unchanged.
	KindOther
)

var kindNames = [...]string{"message", "tool_call", "tool_result", "reasoning", "summary", "other"}

func (k Kind) String() string { return name(kindNames[:], k) }

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error { return unname(kindNames[:], b, k, "item kind") }

// SegmentKind says what a segment holds (a small number; its text is its
// name).
type SegmentKind uint8

// The segment kinds.
const (
	SegText SegmentKind = iota
	SegImage
	SegToolCall
	SegToolResult
	SegReasoning
	SegThinking
	SegRedactedThinking
	SegOther
)

var segmentKindNames = [...]string{"text", "image", "tool_call", "tool_result", "reasoning", "thinking", "redacted_thinking", "other"}

func (k SegmentKind) String() string { return name(segmentKindNames[:], k) }

// MarshalText writes the segment kind's name.
func (k SegmentKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a segment kind's name.
func (k *SegmentKind) UnmarshalText(b []byte) error {
	return unname(segmentKindNames[:], b, k, "segment kind")
}

// Class is what a policy may do with a segment (the Smart Context safety
// classes; see docs/compaction.md). The pruner condenses only
// [ClassCondensable] segments; it keeps or drops whole items otherwise.
// It is a small number; its text is its name.
type Class uint8

// The segment classes.
const (
	// ClassProtocolExact: ids, tool names and call arguments; any change
	// breaks the request or what the model believes it did.
	ClassProtocolExact Class = iota + 1
	// ClassContinuationExact: thinking blocks with signatures, reasoning
	// items and encrypted content a provider checks on continuation.
	ClassContinuationExact
	// ClassCriticalExact: system instructions and user text.
	ClassCriticalExact
	// ClassRehydratableExact: content that already carries a ctxd content
	// reference (it was condensed before); kept exact so it can be
	// rehydrated by hash.
	ClassRehydratableExact
	// ClassLosslessTransformable: content that can be re-encoded without
	// loss (images, documents); the pruner leaves them as they are.
	ClassLosslessTransformable
	// ClassCondensable: tool output and assistant prose that may be cut to
	// a preview when old.
	ClassCondensable
	// ClassDroppableDuplicate: a tool output identical (same content hash)
	// to an earlier one.
	ClassDroppableDuplicate
)

// classNames has "" for the zero Class (not classified yet).
var classNames = [...]string{"", "protocol_exact", "continuation_exact", "critical_exact", "rehydratable_exact", "lossless_transformable", "condensable", "droppable_duplicate"}

func (c Class) String() string { return name(classNames[:], c) }

// MarshalText writes the class's name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class's name.
func (c *Class) UnmarshalText(b []byte) error { return unname(classNames[:], b, c, "segment class") }

// name is names[v], or v as a number when it has none.
func name[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return strconv.Itoa(int(v))
}

// unname sets *v to the index of b in names.
func unname[T ~uint8](names []string, b []byte, v *T, what string) error {
	for i, n := range names {
		if n == string(b) {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q", what, b)
}

// Image is what is known of an image part: its detail setting and, when the
// bytes are inline, its dimensions.
type Image struct {
	Detail string `json:"detail,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// Segment is one piece of an item's content: a text, an image, one tool
// call, one tool result, a reasoning or thinking block.
type Segment struct {
	Kind  SegmentKind `json:"kind"`
	Class Class       `json:"class"`
	// IsError reports a tool result flagged as an error by the provider
	// (Anthropic is_error).
	IsError bool `json:"is_error,omitempty"`

	// value is [Segment.Value], as offsets of 32 bits (a body is at most
	// 4 GiB: Parse).
	value span32
	// Tokens is the segment's estimate, set by [Estimator.Item]: 32 bits
	// (a request of many tiny messages holds one for each; a body is at
	// most 4 GiB and no window near 2^31 tokens).
	Tokens int32 `json:"tokens"`
	// Text is the decoded text: content, call arguments, reasoning. For
	// other segments, the raw JSON.
	Text string `json:"-"`
	// x holds what few segments have, out of line ([Segment.Elem],
	// [Segment.Name], [Segment.CallID], [Segment.Images]): a request of
	// many small messages holds a segment for each (issue 28), as is
	// the index of the array holding Elem.
	x *segExtra
}

// Value is the span of the JSON value that holds the content (a string,
// or the array of parts of a tool result); a rewrite replaces exactly
// these bytes. Zero when there is nothing to rewrite.
func (s *Segment) Value() Span { return s.value.span() }

// span32 is a [Span] of a body of at most 4 GiB, in half the bytes: an
// item and a segment hold one each, a request of many tiny messages one
// each per message (issue 28).
type span32 struct{ start, end uint32 }

func (s span32) span() Span { return Span{int(s.start), int(s.end)} }

// toSpan32 is s in 32 bits; Parse refuses a larger body.
func toSpan32(s Span) span32 { return span32{uint32(s.Start), uint32(s.End)} }

// segExtra is what few segments have.
type segExtra struct {
	elem         Span
	array        int32 // index into the item's list of the array holding elem; -1 if none
	name, callID string
	images       []Image
}

// ext returns the segment's out-of-line part, made on first use.
func (s *Segment) ext() *segExtra {
	if s.x == nil {
		s.x = &segExtra{array: -1}
	}
	return s.x
}

// noExtra is what a segment without an out-of-line part reads: in no
// array, the rest zero.
var noExtra = segExtra{array: -1}

// read returns the segment's out-of-line part, or a zero one to read.
func (s *Segment) read() *segExtra {
	if s.x == nil {
		return &noExtra
	}
	return s.x
}

// Elem is the span of the enclosing array element (a content block, a
// tool_calls entry) when the segment is one; zero otherwise.
func (s *Segment) Elem() Span { return s.read().elem }

// Name is the tool name of a call.
func (s *Segment) Name() string { return s.read().name }

// CallID is the call id a tool call issues or a tool result answers.
func (s *Segment) CallID() string { return s.read().callID }

// Images are the images of the segment (an image part, or images inside
// a tool result).
func (s *Segment) Images() []Image { return s.read().images }

// array is the index of the item's array that holds the segment as an
// element (the item's list), or -1.
func (s *Segment) array() int { return int(s.read().array) }

// setElem, setName and setCallID set what [Segment.Elem], [Segment.Name]
// and [Segment.CallID] return; a zero value makes nothing out of line.
// setElem also sets the array of the item that holds the element.
func (s *Segment) setElem(array int32, e Span) {
	if e != (Span{}) || array >= 0 || s.x != nil {
		x := s.ext()
		x.elem, x.array = e, array
	}
}

// A name and a call id are copied, not views of the body: they key
// caches that outlive the request (the parsed calls of [Cache.ReadsOf]), as
// an unknown role does.
func (s *Segment) setName(n string) {
	if n != "" || s.x != nil {
		s.ext().name = strings.Clone(n)
	}
}

func (s *Segment) setCallID(id string) {
	if id != "" || s.x != nil {
		s.ext().callID = strings.Clone(id)
	}
}

// addImage adds an image to the segment.
func (s *Segment) addImage(img Image) {
	s.ext().images = append(s.ext().images, img)
}

// NewSegment returns a segment of kind k holding text, with a tool
// call's name and call id (either may be ""), in no array: what a
// rewrite would make of a segment, to estimate, or a test's.
func NewSegment(k SegmentKind, name, callID, text string) *Segment {
	s := &Segment{Kind: k, Text: text}
	s.setName(name)
	s.setCallID(callID)
	return s
}

// Hash returns the hex SHA-256 of the segment's text: the address a
// condensed copy records so the original can be stored and rehydrated.
// It is not kept: a request of many small messages would hold one for
// each, and callers ask once per segment.
func (s *Segment) Hash() string { return HashText(s.Text) }

// HashText returns the hex SHA-256 of text.
func HashText(text string) string {
	sum := sha256.Sum256(byteview.ReadOnly(text))
	return hex.EncodeToString(sum[:])
}

// itemExtra is what few items have, out of line: the arrays whose
// elements segments may be dropped one by one, the members of the item's
// object (an array left empty drops its member), the call ids the item
// issues and answers, a role or type ctxd has no number for.
type itemExtra struct {
	members   []member
	list      []arrayRef
	calls     []string
	results   []string
	role, typ string
}

// arrayRef records an array inside an item whose elements segments may be
// dropped one by one: its member in the item object and its elements.
type arrayRef struct {
	member int // index into Item.extra.members
	elems  []Span
}

// Item is one element of the request's conversation: a message or, for
// Responses, a typed item. A request of many small messages holds one
// for each (issue 28): what few items have is out of line, in a table
// of the request ([Item.Calls], [Item.Results], the droppable arrays, a
// role or type not in the tables), the kind, the role and the type are
// small numbers, the bytes are a span of the request's body
// ([Item.Raw]).
type Item struct {
	// req is the request whose body the span indexes and whose table
	// holds the item's out-of-line part; an item built by [NewItem] has
	// one of its own, with no body.
	req  *Request
	span span32
	role uint8 // index in roleNames (roleOther: extra.role), or hasExtra
	typ  uint8 // index in typeNames; typeOther: extra.typ
	Kind Kind  `json:"kind"`
	// Notice reports an injected notice: a system or developer message
	// after the first one, or a user message that opens with a
	// <system-reminder> tag.
	Notice bool `json:"notice,omitempty"`
	// Tokens is the item's estimate, set by [Estimator.Item]: 32 bits,
	// as a segment's.
	Tokens int32 `json:"tokens"`
	// Segments are the item's content pieces in order.
	Segments []Segment `json:"segments"`
}

// hasExtra is the bit of Item.role set when the item has an out-of-line
// part in its request's table (most messages have none, and pay no
// pointer for it).
const hasExtra = 0x80

// The roles and the Responses item types an item holds as a number; ""
// is 0, a value not in the table is held out of line (roleOther,
// typeOther).
var (
	roleNames = [...]string{"", "system", "developer", "user", "assistant", "tool", "function"}
	typeNames = [...]string{"", "message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
		"computer_call", "computer_call_output", "reasoning", "mcp_approval_request", "mcp_approval_response"}
)

const (
	roleOther = uint8(len(roleNames))
	typeOther = uint8(len(typeNames))
)

// NewItem returns an item of role role holding segs, in no request (a
// test's, or one to render).
func NewItem(role string, kind Kind, segs ...Segment) *Item {
	it := &Item{req: &Request{}, Kind: kind, Segments: segs}
	it.setRole(role)
	return it
}

// Span is where the item's bytes lie in the request's body.
func (it *Item) Span() Span { return it.span.span() }

// Raw is the item's bytes (nil for an item built by [NewItem]).
func (it *Item) Raw() []byte {
	if it.req == nil || it.req.Body == nil {
		return nil
	}
	return it.req.Body[it.span.start:it.span.end]
}

// Role is the message role ("system", "developer", "user", "assistant",
// "tool", "function"); "" for non-message items.
func (it *Item) Role() string {
	if r := it.role &^ hasExtra; r != roleOther {
		return roleNames[r]
	}
	return it.read().role
}

// Type is the Responses item type ("message", "function_call", ...).
func (it *Item) Type() string {
	if it.typ == typeOther {
		return it.read().typ
	}
	return typeNames[it.typ]
}

func (it *Item) setRole(role string) {
	n := number(roleNames[:], role)
	it.role = it.role&hasExtra | n
	if n == roleOther {
		it.ext().role = strings.Clone(role) // a key of caches (the estimator's)
	}
}

func (it *Item) setType(typ string) {
	if it.typ = number(typeNames[:], typ); it.typ == typeOther {
		it.ext().typ = strings.Clone(typ)
	}
}

// number is the index of s in names, or len(names) when it is not there.
func number(names []string, s string) uint8 {
	for i, n := range names {
		if n == s {
			return uint8(i)
		}
	}
	return uint8(len(names))
}

// Calls are the tool call ids the item issues, in input order (they may
// repeat).
func (it *Item) Calls() []string { return it.read().calls }

// Results are the tool call ids the item answers, in input order (they
// may repeat).
func (it *Item) Results() []string { return it.read().results }

// ext returns the item's out-of-line part, made on first use (while the
// request is parsed or the item built: the table is read only after).
func (it *Item) ext() *itemExtra {
	if it.role&hasExtra != 0 {
		return it.req.extras[it.span.start]
	}
	if it.req.extras == nil {
		it.req.extras = map[uint32]*itemExtra{}
	}
	x := &itemExtra{}
	it.req.extras[it.span.start] = x
	it.role |= hasExtra
	return x
}

// noItemExtra is what an item without an out-of-line part reads: zero.
var noItemExtra itemExtra

// read returns the item's out-of-line part, or a zero one to read.
func (it *Item) read() *itemExtra {
	if it.role&hasExtra == 0 {
		return &noItemExtra
	}
	return it.req.extras[it.span.start]
}

// Hash returns the hex SHA-256 of the item's raw bytes (not kept: asked
// for once or twice a request).
func (it *Item) Hash() string {
	sum := sha256.Sum256(it.Raw())
	return hex.EncodeToString(sum[:])
}

// Text returns the item's text segments and tool results joined by
// newlines (for summaries and tests; never logged).
func (it *Item) Text() string {
	only := -1
	for i := range it.Segments {
		if k := it.Segments[i].Kind; k == SegText || k == SegToolResult {
			if only >= 0 {
				only = -2
				break
			}
			only = i
		}
	}
	switch {
	case only == -1:
		return ""
	case only >= 0:
		// One text (the common case): itself, not a copy of what may
		// be most of a large request.
		return it.Segments[only].Text
	}
	var sb strings.Builder
	for i := range it.Segments {
		s := &it.Segments[i]
		switch s.Kind {
		case SegText, SegToolResult:
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(s.Text)
		}
	}
	return sb.String()
}

// Request is a parsed model request: its format, top-level members and
// conversation items, all pointing into the original body.
type Request struct {
	Format Format
	// Body is the original request; every span indexes into it.
	Body []byte
	// Model is the top-level "model" value, if any.
	Model string
	// ItemsKey is "messages" or "input": the member holding Items.
	ItemsKey string
	// Items are the conversation's items in order.
	Items []*Item
	// Fixed are the top-level parts that are always sent and never
	// rewritten: Anthropic "system", Responses "instructions", tool
	// definitions. They count toward every budget.
	Fixed []Segment
	// InputString reports a Responses request whose "input" is a plain
	// string (a single user item).
	InputString bool

	top   obj
	items Span // span of the items array (or the input string); its elements are the items' spans
	// extras are the out-of-line parts of the items that have one, by
	// the start of the item's span (unique among a request's items;
	// an item built by [NewItem] has a request of its own).
	extras map[uint32]*itemExtra
}

// errNoItems is returned by operations that need an items array.
var errNoItems = errors.New("request has no items array")

// WrapHistory makes a request body of a history (a JSON array of
// messages or Responses items) in format f, for the compactors: the one
// place a history becomes a request. model, when set, is the body's
// "model".
func WrapHistory(hist []byte, f Format, model string) []byte {
	var b bytes.Buffer
	b.Grow(len(hist) + len(model) + 32)
	b.WriteString("{")
	if model != "" {
		m, _ := json.Marshal(model)
		b.WriteString(`"model":`)
		b.Write(m)
		b.WriteString(",")
	}
	if f == FormatResponses {
		b.WriteString(`"input":`)
	} else {
		b.WriteString(`"messages":`)
	}
	b.Write(hist)
	b.WriteString("}")
	return b.Bytes()
}
