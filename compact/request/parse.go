package request

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/jsonpos"
)

// SummaryPrefix opens the text of every summary item ctxd inserts, so a
// later pass recognizes it ([KindSummary]).
const SummaryPrefix = "[ctxd summary:"

// ReferencePrefix opens the marker a condensed segment carries: the hash
// of the text it replaced follows ("sha256:" and 12 hex digits).
const ReferencePrefix = "chars hidden to save context"

// Parse reads body as a request of format f, or of the detected format
// when f is "". The body is not copied: the request's spans and Raw
// slices point into it, so the caller must not modify it afterwards.
func Parse(body []byte, f Format) (*Request, error) {
	return parse(body, f, nil)
}

// ParseContext is Parse stopping soon after ctx is done (within about a
// thousand array elements or items: issue 28), with ctx's error.
func ParseContext(ctx context.Context, body []byte, f Format) (*Request, error) {
	return parse(body, f, &canceller{ctx: ctx})
}

func parse(body []byte, f Format, c *canceller) (*Request, error) {
	if err := checkSize(len(body)); err != nil {
		return nil, fmt.Errorf("parse request: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("parse request: %w", err)
	}
	if !validateStop(body, c) {
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("parse request: %w", err)
		}
		return nil, fmt.Errorf("parse request: %w", invalidJSON("request", body))
	}
	top, err := parseObj(body, trimSpan(body))
	if err != nil {
		return nil, fmt.Errorf("parse request: top level must be an object: %w", ErrNotRequest)
	}
	if f == "" {
		if f, err = detect(body, top); err != nil {
			return nil, err
		}
	}
	r := &Request{Format: f, Body: body, top: top, Model: strings.Clone(top.str(body, "model"))}
	switch f {
	case FormatChat, FormatAnthropic:
		err = r.parseItems("messages", c)
	case FormatResponses:
		err = r.parseResponsesInput(c)
	default:
		return nil, fmt.Errorf("parse request: unknown format %q: %w", f, ErrNotRequest)
	}
	if err != nil {
		return nil, fmt.Errorf("parse %s request: %w", f, err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("parse %s request: %w", f, err)
	}
	r.parseFixed()
	classify(r)
	return r, nil
}

// maxBody is the largest body Parse reads: spans are offsets of 32 bits.
const maxBody = math.MaxUint32

// checkSize refuses a body of n bytes over maxBody.
func checkSize(n int) error {
	if uint64(n) > maxBody {
		return fmt.Errorf("request body of %d bytes is over the 4 GiB ctxd reads: %w", n, ErrNotRequest)
	}
	return nil
}

// SyntaxError reports a request body (or an item) that is not JSON:
// where, why, and what was expected. It is an [ErrNotRequest] (so a
// ctxd.ErrInvalidParams) and its text is whole (ctxd.WholeMessage): the
// doors print it without the operations it passed through.
type SyntaxError struct {
	// What is "request" or "item".
	What string
	jsonpos.Problem
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("the %s body is not valid JSON at %s; want a JSON object: a Chat Completions, Anthropic Messages or Responses request", e.What, e.Problem)
}

// Unwrap makes a SyntaxError an ErrNotRequest.
func (e *SyntaxError) Unwrap() error { return ErrNotRequest }

// WholeMessage marks the text as whole (ctxd.WholeMessage).
func (e *SyntaxError) WholeMessage() {}

// CheckJSON returns a *SyntaxError saying where a request body stops
// being JSON, or nil when it is JSON (for a door that checks a body
// before it parses it).
func CheckJSON(body []byte) error {
	if p, bad := jsonpos.Find(body); bad {
		return &SyntaxError{What: "request", Problem: p}
	}
	return nil
}

// invalidJSON describes why body (a request or an item: what) is not
// JSON, and where.
func invalidJSON(what string, body []byte) *SyntaxError {
	p, bad := jsonpos.Find(body)
	if !bad {
		// The scanner refused what encoding/json reads: say where the
		// body starts, and that it is malformed.
		p = jsonpos.At(body, 0, errSyntax.Error())
	}
	return &SyntaxError{What: what, Problem: p}
}

func trimSpan(b []byte) Span {
	s, e := 0, len(b)
	for s < e && isSpace(b[s]) {
		s++
	}
	for e > s && isSpace(b[e-1]) {
		e--
	}
	return Span{s, e}
}

// Detect reports the format of a request body.
func Detect(body []byte) (Format, error) {
	if !validate(body) {
		return "", fmt.Errorf("detect request format: %w", invalidJSON("request", body))
	}
	top, err := parseObj(body, trimSpan(body))
	if err != nil {
		return "", fmt.Errorf("detect request format: top level must be an object: %w", ErrNotRequest)
	}
	return detect(body, top)
}

// detect weighs the signals of each format. Chat and Anthropic share the
// "messages" member; a body with no signal either way (plain user and
// assistant strings) reads the same in both, and is taken as Anthropic
// only when its model names Claude.
func detect(b []byte, top obj) (Format, error) {
	msgs, hasMsgs := top.get("messages")
	input, hasInput := top.get("input")
	if hasMsgs && kindOf(b, msgs) == '[' {
		anth, chat := 0, 0
		if _, ok := top.get("system"); ok {
			anth += 2
		}
		for _, k := range []string{"anthropic_version", "stop_sequences", "top_k", "thinking"} {
			if _, ok := top.get(k); ok {
				anth++
			}
		}
		for _, k := range []string{"max_completion_tokens", "response_format", "logprobs", "stream_options", "n", "functions", "function_call", "tool_choice_required"} {
			if _, ok := top.get(k); ok {
				chat++
			}
		}
		a, c := messageSignals(b, msgs, anth-chat)
		anth += a
		chat += c
		switch {
		case anth > chat:
			return FormatAnthropic, nil
		case chat > anth:
			return FormatChat, nil
		case strings.Contains(strings.ToLower(top.str(b, "model")), "claude"):
			return FormatAnthropic, nil
		}
		return FormatChat, nil
	}
	if hasInput {
		if k := kindOf(b, input); k == '"' || k == '[' {
			return FormatResponses, nil
		}
	}
	return "", ErrNotRequest
}

// decisiveMargin is the lead in signal points after which detection stops
// reading messages: ten strong signals (2 points each) one way outweigh
// anything the top level can add (at most 8 points).
const decisiveMargin = 20

// messageSignals counts format-specific features of a messages array,
// stopping once one format leads by decisiveMargin (counting lead, the
// top level's margin for Anthropic).
func messageSignals(b []byte, msgs Span, lead int) (anth, chat int) {
	elems, err := arrayElems(b, msgs)
	if err != nil {
		return 0, 0
	}
	var scratch []member // each message's members, read into one buffer
	for _, e := range elems {
		if d := lead + anth - chat; d >= decisiveMargin || d <= -decisiveMargin {
			break
		}
		if kindOf(b, e) != '{' {
			continue
		}
		o, err := parseObjInto(scratch[:0], b, e)
		if err != nil {
			continue
		}
		scratch = o.members
		switch o.str(b, "role") {
		case "system", "developer", "tool", "function":
			chat += 2
		}
		for _, k := range []string{"tool_calls", "tool_call_id", "reasoning_content", "function_call", "refusal"} {
			if _, ok := o.get(k); ok {
				chat += 2
			}
		}
		c, ok := o.get("content")
		if !ok || kindOf(b, c) != '[' {
			continue
		}
		parts, _ := arrayElems(b, c)
		for _, p := range parts {
			po, ok := objectAt(b, p)
			if !ok {
				continue
			}
			switch po.str(b, "type") {
			case "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use":
				anth += 2
			case "image":
				if _, ok := po.get("source"); ok {
					anth += 2
				}
			case "image_url", "input_audio", "file":
				chat += 2
			}
		}
	}
	return anth, chat
}

func (r *Request) parseItems(key string, c *canceller) error {
	v, ok := r.top.get(key)
	if !ok {
		return fmt.Errorf("no %q member: %w", key, ErrNotRequest)
	}
	if kindOf(r.Body, v) != '[' {
		return fmt.Errorf("%q must be an array: %w", key, ErrNotRequest)
	}
	r.ItemsKey, r.items = key, v
	// The items, and the first segment of each, are held in blocks of
	// arrays, each as large as the items before it (at most
	// maxItemBlock, at most what the rest of the array holds at their
	// average size): a request of many small messages would otherwise
	// pay an allocation (and its size-class rounding) for every one of
	// them, and a slice of the elements' spans to count them first. An
	// item with more segments appends past its one-segment slot into a
	// slice of its own (the slot's capacity is 1).
	var items []Item
	var first []Segment
	var scratch []member
	return eachElem(r.Body, v, func(e Span) error {
		if c.stop() {
			return c.err
		}
		if len(items) == cap(items) {
			n := min(max(len(r.Items), minItemBlock), maxItemBlock)
			if k := len(r.Items); k > 0 {
				// No more than the rest of the array holds at the
				// items' average size so far: the last block is not
				// thousands of empty slots.
				avg := max((e.Start-v.Start)/k, 1)
				n = min(n, max((v.End-e.Start)/avg+1, minItemBlock))
			}
			items, first = make([]Item, 0, n), make([]Segment, n)
		}
		i, k := len(r.Items), len(items)
		items = items[:k+1]
		it := &items[k]
		*it = Item{req: r, span: toSpan32(e), Segments: first[k : k : k+1]}
		r.Items = append(r.Items, it)
		if kindOf(r.Body, e) != '{' {
			// Not an object: nothing to interpret; it passes through.
			it.Kind = KindOther
			it.Segments = append(it.Segments, Segment{Kind: SegOther, Text: byteview.Borrowed(it.Raw())})
			return nil
		}
		o, err := parseObjInto(scratch[:0], r.Body, e)
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		scratch = o.members
		r.parseItem(it, o)
		return nil
	})
}

// The sizes of the blocks parseItems holds items in.
const (
	minItemBlock = 16
	maxItemBlock = 4096
)

// parseItem reads item it from its object o in the request's format. It
// reports false for a format it does not know. o.members may be a scratch
// buffer the next item reuses: the item keeps a copy of its members only
// when it has arrays whose elements a plan may drop (Plan's itemEdits is
// their only reader).
func (r *Request) parseItem(it *Item, o obj) bool {
	switch r.Format {
	case FormatChat:
		r.parseChatItem(it, o)
	case FormatAnthropic:
		r.parseAnthropicItem(it, o)
	case FormatResponses:
		r.parseResponsesItem(it, o)
	default:
		return false
	}
	if x := it.read(); len(x.list) > 0 {
		x.members = slices.Clone(o.members)
	}
	return true
}

func (r *Request) parseResponsesInput(c *canceller) error {
	v, ok := r.top.get("input")
	if !ok {
		return fmt.Errorf("no \"input\" member: %w", ErrNotRequest)
	}
	switch kindOf(r.Body, v) {
	case '[':
		return r.parseItems("input", c)
	case '"':
		text, err := decodeString(r.Body[v.Start:v.End])
		if err != nil {
			return err
		}
		r.ItemsKey, r.items, r.InputString = "input", v, true
		it := &Item{req: r, span: toSpan32(v), Kind: KindMessage, Segments: []Segment{{Kind: SegText, value: toSpan32(v), Text: text}}}
		it.setRole("user")
		it.setType("message")
		r.Items = []*Item{it}
		return nil
	}
	return fmt.Errorf("\"input\" must be a string or an array: %w", ErrNotRequest)
}

// parseFixed records the top-level parts sent with every request.
func (r *Request) parseFixed() {
	b := r.Body
	for _, key := range []string{"system", "instructions", "tools", "functions"} {
		v, ok := r.top.get(key)
		if !ok {
			continue
		}
		if key == "system" && r.Format != FormatAnthropic || key == "instructions" && r.Format != FormatResponses {
			continue
		}
		seg := Segment{Kind: SegOther, Class: ClassProtocolExact, value: toSpan32(v), Text: byteview.Borrowed(b[v.Start:v.End])}
		if key == "system" || key == "instructions" {
			seg.Kind, seg.Class = SegText, ClassCriticalExact
			switch kindOf(b, v) {
			case '"':
				seg.Text, _ = decodeString(b[v.Start:v.End])
			case '[':
				seg.Text = joinTextBlocks(b, v, nil)
			}
		}
		if kindOf(b, v) == 'n' {
			continue
		}
		r.Fixed = append(r.Fixed, seg)
	}
}

// joinTextBlocks joins the "text" of an array of blocks; images found are
// added to seg's when seg is not nil. The text of one block is returned
// as it was decoded (a view of b when it has no escapes: issue 28).
func joinTextBlocks(b []byte, v Span, seg *Segment) string {
	elems, err := arrayElems(b, v)
	if err != nil {
		return ""
	}
	var j joined
	for _, e := range elems {
		switch kindOf(b, e) {
		case '"':
			s, _ := decodeString(b[e.Start:e.End])
			j.add(s)
			continue
		case '{':
		default:
			continue
		}
		o, err := parseObj(b, e)
		if err != nil {
			continue
		}
		switch t := o.str(b, "type"); t {
		case "text", "input_text", "output_text":
			j.add(o.str(b, "text"))
		case "image", "image_url", "input_image", "computer_screenshot":
			if seg != nil {
				seg.addImage(imageOf(b, o, t))
			}
		default:
			j.add(byteview.Borrowed(b[e.Start:e.End]))
		}
	}
	return j.String()
}

// joined is texts joined by newlines, a newline before a text when the
// texts before it are not empty; one text is not copied.
type joined struct {
	first string
	many  bool
	sb    strings.Builder
}

func (j *joined) add(s string) {
	if !j.many {
		if j.first == "" {
			j.first = s
			return
		}
		j.many = true
		j.sb.WriteString(j.first)
	}
	j.sb.WriteByte('\n')
	j.sb.WriteString(s)
}

func (j *joined) String() string {
	if j.many {
		return j.sb.String()
	}
	return j.first
}

func (r *Request) addArray(it *Item, o obj, key string) (idx int32, elems []Span) {
	v, ok := o.get(key)
	if !ok || kindOf(r.Body, v) != '[' {
		return -1, nil
	}
	elems, err := arrayElems(r.Body, v)
	if err != nil {
		return -1, nil
	}
	x := it.ext()
	x.list = append(x.list, arrayRef{member: o.memberIndex(key), elems: elems})
	return int32(len(x.list) - 1), elems
}

// objectAt returns the object at s, or false when s holds another JSON
// value or an object that does not parse.
func objectAt(b []byte, s Span) (obj, bool) {
	if kindOf(b, s) != '{' {
		return obj{}, false
	}
	o, err := parseObj(b, s)
	return o, err == nil
}

// add adds seg to it, and the id of a tool call's segment to its calls, of
// a tool result's to its results.
func (it *Item) add(seg Segment) {
	if seg.CallID() != "" {
		switch seg.Kind {
		case SegToolCall:
			it.ext().calls = append(it.ext().calls, seg.CallID())
		case SegToolResult:
			it.ext().results = append(it.ext().results, seg.CallID())
		}
	}
	it.Segments = append(it.Segments, seg)
}

// addContent adds the segments of o's "content" member c: one text
// segment when it is a string, one segment an element, read by part, when
// it is an array.
func (r *Request) addContent(it *Item, o obj, c Span, part func(e Span, ai int32) Segment) {
	switch kindOf(r.Body, c) {
	case '"':
		it.add(textSegment(r.Body, c, SegText))
	case '[':
		ai, elems := r.addArray(it, o, "content")
		for _, e := range elems {
			it.add(part(e, ai))
		}
	}
}

// textSegment is the segment of kind k of a content member whose value c
// is a JSON string.
func textSegment(b []byte, c Span, k SegmentKind) Segment {
	text, _ := decodeString(b[c.Start:c.End])
	return Segment{Kind: k, value: toSpan32(c), Text: text}
}

// setText makes seg a segment of kind k holding o's member key, when that
// is a JSON string; it reports whether it was.
func (seg *Segment) setText(b []byte, o obj, key string, k SegmentKind) bool {
	v, ok := o.get(key)
	if !ok || kindOf(b, v) != '"' {
		return false
	}
	seg.Kind, seg.value = k, toSpan32(v)
	seg.Text, _ = decodeString(b[v.Start:v.End])
	return true
}

// setResult sets a tool result's Value to v and its Text to v's text: a
// string decoded, the text blocks of an array joined (its images listed).
// It reports false for any other JSON value, which it leaves to the caller.
func (seg *Segment) setResult(b []byte, v Span) bool {
	seg.value = toSpan32(v)
	switch kindOf(b, v) {
	case '"':
		seg.Text, _ = decodeString(b[v.Start:v.End])
	case '[':
		seg.Text = joinTextBlocks(b, v, seg)
	default:
		return false
	}
	return true
}

func (r *Request) parseChatItem(it *Item, o obj) {
	b := r.Body
	it.setRole(o.str(b, "role"))
	isResult := it.Role() == "tool" || it.Role() == "function"
	if c, ok := o.get("content"); ok {
		if !isResult {
			r.addContent(it, o, c, r.partSegment)
		} else if seg := (Segment{Kind: SegToolResult}); seg.setResult(b, c) {
			it.Segments = append(it.Segments, seg)
		}
	}
	if isResult {
		if len(it.Segments) == 0 {
			it.Segments = append(it.Segments, Segment{Kind: SegToolResult})
		}
		id := o.str(b, "tool_call_id")
		it.Segments[0].setCallID(id)
		it.Segments[0].setName(o.str(b, "name"))
		if id != "" {
			it.ext().results = append(it.ext().results, id)
		}
	}
	for _, k := range []string{"reasoning_content", "reasoning", "refusal"} {
		kind := SegReasoning
		if k == "refusal" {
			kind = SegText
		}
		if seg := (Segment{}); seg.setText(b, o, k, kind) {
			it.Segments = append(it.Segments, seg)
		}
	}
	ai, calls := r.addArray(it, o, "tool_calls")
	for _, e := range calls {
		seg := Segment{Kind: SegToolCall}
		seg.setElem(ai, e)
		if kindOf(b, e) == '{' {
			if co, err := parseObj(b, e); err == nil {
				seg.setCallID(co.str(b, "id"))
				for _, fk := range []string{"function", "custom"} {
					if fv, ok := co.get(fk); ok && kindOf(b, fv) == '{' {
						if fo, err := parseObj(b, fv); err == nil {
							seg.setName(fo.str(b, "name"))
							seg.Text = rawOrString(b, fo, "arguments", "input")
						}
					}
				}
			}
		}
		it.add(seg)
	}
	if fv, ok := o.get("function_call"); ok && kindOf(b, fv) == '{' {
		if fo, err := parseObj(b, fv); err == nil {
			it.Segments = append(it.Segments, *NewSegment(SegToolCall, fo.str(b, "name"), "", rawOrString(b, fo, "arguments")))
		}
	}
	switch {
	case isResult:
		it.Kind = KindToolResult
	case hasSeg(it, SegToolCall):
		it.Kind = KindToolCall
	default:
		it.Kind = KindMessage
	}
}

// rawOrString returns the first of keys: decoded when a string, raw JSON
// otherwise.
func rawOrString(b []byte, o obj, keys ...string) string {
	for _, k := range keys {
		v, ok := o.get(k)
		if !ok {
			continue
		}
		if kindOf(b, v) == '"' {
			s, _ := decodeString(b[v.Start:v.End])
			return s
		}
		return byteview.Borrowed(b[v.Start:v.End])
	}
	return ""
}

func hasSeg(it *Item, k SegmentKind) bool {
	for i := range it.Segments {
		if it.Segments[i].Kind == k {
			return true
		}
	}
	return false
}

// partSegment reads one content part of a Chat or Responses message.
func (r *Request) partSegment(p Span, ai int32) Segment {
	b := r.Body
	seg := Segment{Kind: SegOther, Text: byteview.Borrowed(b[p.Start:p.End])}
	seg.setElem(ai, p)
	switch kindOf(b, p) {
	case '"':
		seg.Kind, seg.value = SegText, toSpan32(p)
		seg.Text, _ = decodeString(b[p.Start:p.End])
		return seg
	case '{':
	default:
		return seg
	}
	po, err := parseObj(b, p)
	if err != nil {
		return seg
	}
	switch t := po.str(b, "type"); t {
	case "text", "input_text", "output_text":
		seg.setText(b, po, "text", SegText)
	case "refusal":
		seg.setText(b, po, "refusal", SegText)
	case "image_url", "input_image", "image":
		seg.Kind, seg.Text = SegImage, ""
		seg.addImage(imageOf(b, po, t))
	}
	return seg
}

func (r *Request) parseAnthropicItem(it *Item, o obj) {
	b := r.Body
	it.setRole(o.str(b, "role"))
	if c, ok := o.get("content"); ok {
		r.addContent(it, o, c, r.blockSegment)
	}
	switch {
	case len(it.Results()) > 0 || hasSeg(it, SegToolResult):
		it.Kind = KindToolResult
	case hasSeg(it, SegToolCall):
		it.Kind = KindToolCall
	default:
		it.Kind = KindMessage
	}
}

// blockSegment reads one content block of an Anthropic message.
func (r *Request) blockSegment(e Span, ai int32) Segment {
	b := r.Body
	seg := Segment{Kind: SegOther, Text: byteview.Borrowed(b[e.Start:e.End])}
	seg.setElem(ai, e)
	bo, ok := objectAt(b, e)
	if !ok {
		return seg
	}
	switch t := bo.str(b, "type"); t {
	case "text":
		seg.setText(b, bo, "text", SegText)
	case "image":
		seg.Kind, seg.Text = SegImage, ""
		seg.addImage(imageOf(b, bo, t))
	case "tool_use":
		seg.Kind = SegToolCall
		seg.setCallID(bo.str(b, "id"))
		seg.setName(bo.str(b, "name"))
		seg.Text = rawOrString(b, bo, "input")
	case "tool_result":
		seg.Kind, seg.Text = SegToolResult, ""
		seg.setCallID(bo.str(b, "tool_use_id"))
		if v, ok := bo.get("is_error"); ok && string(b[v.Start:v.End]) == "true" {
			seg.IsError = true
		}
		if v, ok := bo.get("content"); ok {
			seg.setResult(b, v)
		}
	case "thinking":
		seg.Kind = SegThinking
		seg.Text = bo.str(b, "thinking")
	case "redacted_thinking":
		seg.Kind = SegRedactedThinking
		seg.Text = bo.str(b, "data")
	}
	return seg
}

func (r *Request) parseResponsesItem(it *Item, o obj) {
	b := r.Body
	it.setType(o.str(b, "type"))
	it.setRole(o.str(b, "role"))
	if it.Type() == "" && it.Role() != "" {
		it.setType("message")
	}
	switch it.Type() {
	case "message":
		it.Kind = KindMessage
		if c, ok := o.get("content"); ok {
			r.addContent(it, o, c, r.partSegment)
		}
	case "function_call", "custom_tool_call", "computer_call":
		it.Kind = KindToolCall
		seg := NewSegment(SegToolCall, o.str(b, "name"), "", rawOrString(b, o, "arguments", "input", "action"))
		seg.setCallID(o.str(b, "call_id"))
		it.add(*seg)
	case "function_call_output", "custom_tool_call_output", "computer_call_output":
		it.Kind = KindToolResult
		seg := &Segment{Kind: SegToolResult}
		seg.setCallID(o.str(b, "call_id"))
		if v, ok := o.get("output"); ok && !seg.setResult(b, v) {
			if kindOf(b, v) != '{' {
				seg.Text = byteview.Borrowed(b[v.Start:v.End])
			} else if oo, err := parseObj(b, v); err == nil {
				t := oo.str(b, "type")
				if t == "computer_screenshot" || t == "input_image" {
					seg.addImage(imageOf(b, oo, t))
				} else {
					seg.Text = byteview.Borrowed(b[v.Start:v.End])
				}
			}
		}
		it.add(*seg)
	case "mcp_approval_request":
		it.Kind = KindToolCall
		seg := NewSegment(SegToolCall, o.str(b, "name"), "", rawOrString(b, o, "arguments"))
		seg.setCallID(o.str(b, "id"))
		it.add(*seg)
	case "mcp_approval_response":
		it.Kind = KindToolResult
		seg := NewSegment(SegToolResult, "", "", byteview.Borrowed(it.Raw()))
		seg.setCallID(o.str(b, "approval_request_id"))
		it.add(*seg)
	case "reasoning":
		it.Kind = KindReasoning
		for _, k := range []string{"summary", "content"} {
			if v, ok := o.get(k); ok && kindOf(b, v) == '[' {
				it.Segments = append(it.Segments, Segment{Kind: SegReasoning, Text: joinTextBlocks(b, v, nil)})
			}
		}
		if v, ok := o.get("encrypted_content"); ok && kindOf(b, v) == '"' {
			text, _ := decodeString(b[v.Start:v.End])
			it.Segments = append(it.Segments, Segment{Kind: SegRedactedThinking, Text: text})
		}
	default:
		it.Kind = KindOther
		it.Segments = append(it.Segments, Segment{Kind: SegOther, Text: byteview.Borrowed(it.Raw())})
	}
}

// ParseItem reads one item in format f: an item a policy builds (a
// summary, a note) so it can be estimated like the others.
func ParseItem(f Format, raw []byte) (*Item, error) {
	if err := checkSize(len(raw)); err != nil {
		return nil, fmt.Errorf("parse item: %w", err)
	}
	if !validate(raw) {
		return nil, fmt.Errorf("parse item: %w", invalidJSON("item", raw))
	}
	sp := trimSpan(raw)
	r := &Request{Format: f, Body: raw, ItemsKey: "item", items: sp}
	it := &Item{req: r, span: toSpan32(sp), Kind: KindOther}
	r.Items = []*Item{it}
	if kindOf(raw, sp) == '{' {
		o, err := parseObj(raw, sp)
		if err != nil {
			return nil, fmt.Errorf("parse item: %w", err)
		}
		if !r.parseItem(it, o) {
			return nil, fmt.Errorf("parse item: unknown format %q: %w", f, ErrNotRequest)
		}
	}
	classify(r)
	return it, nil
}
