package request

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/ctxd/ctxd/tokens"
)

// verifyAgrees fails t unless Verify and parsing whole accept, reject
// and count out alike; it returns Verify's error.
func verifyAgrees(t *testing.T, p *Plan, out []byte, f Format, est *Estimator) error {
	t.Helper()
	want, werr := verifyByParse(out, f, est)
	got, gerr := p.Verify(out, est)
	if (werr == nil) != (gerr == nil) || got != want {
		t.Fatalf("%s: Verify = %d, %v; parsing whole = %d, %v\n%s", f, got, gerr, want, werr, out)
	}
	return gerr
}

// verifyByParse is what Verify replaces: the emitted request parsed
// whole, its pairs checked, counted.
func verifyByParse(out []byte, f Format, est *Estimator) (int, error) {
	got, err := Parse(out, f)
	if err != nil {
		return 0, err
	}
	if err := got.Check(); err != nil {
		return 0, err
	}
	return est.Request(got), nil
}

func realEstimator(t testing.TB) *Estimator {
	c, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return NewEstimator(c, ImageOpenAI)
}

// planFrom builds a plan over r from ops: each byte drops an item,
// rewrites a text, drops a segment or inserts an item, by its value.
func planFrom(r *Request, ops []byte) *Plan {
	p := r.NewPlan()
	n := len(r.Items)
	for k, op := range ops {
		if n == 0 {
			break
		}
		i := int(op>>2) % n
		switch op & 3 {
		case 0:
			p.DropItem(i)
		case 1:
			if s := r.Items[i].Segments; len(s) > 0 {
				p.SetText(SegRef{i, int(op>>5) % len(s)}, fmt.Sprintf("rewritten %d \"q\"\n", k))
			}
		case 2:
			if s := r.Items[i].Segments; len(s) > 0 {
				p.DropSegment(SegRef{i, int(op>>5) % len(s)})
			}
		case 3:
			at := int(op>>2)%(n+2) - 1 // -1 and len(Items) too
			p.Insert(at, []byte(fmt.Sprintf(` {"role":"user","content":"inserted %d"} `, k)))
		}
	}
	return p
}

// TestPlanVerify: over many plans on requests of the three formats,
// Verify accepts what parsing the output whole accepts and counts the
// same tokens; and what it rejects, the parse rejects too (a plan that
// drops a call's result leaves the call unpaired).
func TestPlanVerify(t *testing.T) {
	est := realEstimator(t)
	bodies := []string{chatBody, anthropicBody, responsesBody, `{"input":"hi"}`, `{"messages":[1,"a",null,{}]}`,
		"{\"messages\":[ ]}", "{\"messages\": [\n  {\"role\":\"user\",\"content\":\"a\"} ,\n\t{\"role\":\"assistant\",\"content\":\"b\"}\n] , \"z\":[1]}"}
	accepted, rejected := 0, 0
	for _, body := range bodies {
		for seed := range 400 {
			r, err := Parse([]byte(body), "")
			if err != nil {
				t.Fatal(err)
			}
			ops := []byte{byte(seed), byte(seed * 7 >> 1), byte(seed*13 + 5)}[:1+seed%3]
			p := planFrom(r, ops)
			out, err := p.Emit()
			if err != nil {
				continue
			}
			gerr := verifyAgrees(t, p, out, r.Format, est)
			if gerr == nil {
				accepted++
			} else if !errors.Is(gerr, ErrUnpaired) {
				t.Fatalf("%s, ops %v: Verify rejected a plan's own output for another cause than a pair: %v", r.Format, ops, gerr)
			} else {
				rejected++
			}
		}
	}
	if accepted == 0 || rejected == 0 {
		t.Fatalf("accepted %d, rejected %d plans: the cases do not reach both outcomes", accepted, rejected)
	}
}

// TestPlanVerifyRejects: an output that is not what the plan emits is
// refused, each with the bytes of a valid emit changed one way.
func TestPlanVerifyRejects(t *testing.T) {
	est := realEstimator(t)
	r, err := Parse([]byte(chatBody), "")
	if err != nil {
		t.Fatal(err)
	}
	p := r.NewPlan()
	p.DropItem(1)
	p.SetText(SegRef{4, 0}, "short")
	p.Insert(1, []byte(`{"role":"user","content":"ledger"}`))
	out, err := p.Emit()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Verify(out, est); err != nil {
		t.Fatalf("Verify refused the plan's own output: %v", err)
	}
	replace := func(old, new string) []byte {
		if !bytes.Contains(out, []byte(old)) {
			t.Fatalf("%q not in the output", old)
		}
		return bytes.Replace(bytes.Clone(out), []byte(old), []byte(new), 1)
	}
	sys, ledger := `{"role": "system", "content": "You are \u0061 helper \ud83d\ude00"}`, `{"role":"user","content":"ledger"}`
	swapped := bytes.Replace(replace(sys, "@"), []byte(ledger), []byte(sys), 1)
	swapped = bytes.Replace(swapped, []byte("@"), []byte(ledger), 1)
	tool := `{"role":"tool","tool_call_id":"call_1","content":"package a\n"}`
	for _, tt := range []struct {
		name string
		out  []byte
	}{
		{"truncated", out[:len(out)-2]},
		{"not JSON", replace(`"ledger"}`, `"ledger"`)},
		{"a kept item changed", replace(`"content":"package a\n"`, `"content":"package b\n"`)},
		{"a top-level member changed", replace(`"temperature": 1.50e0`, `"temperature": 2.50e0`)},
		{"a member added around the array", replace(`"tools":`, `"extra":1,"tools":`)},
		{"the tool result gone", replace(",\n    "+tool, "")},
		{"the call's id changed", replace(`"tool_call_id":"call_1"`, `"tool_call_id":"call_2"`)},
		{"an item more", replace(tool, tool+","+tool)},
		{"two items swapped", swapped},
		{"the inserted item not an item", replace(`{"role":"user","content":"ledger"}`, `[1,2]`)},
		{"the rewritten item not an object", replace(`{"role":"assistant","content":"short",   "extra": true}`, `"short"`)},
		{"the array emptied", replace(string(out[bytes.Index(out, []byte("[\n")):bytes.LastIndex(out, []byte("],"))+1]), "[]")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := p.Verify(tt.out, est); err == nil {
				t.Errorf("Verify accepted:\n%s", tt.out)
			}
		})
	}
}

// hashCounter counts a text by its length and a hash of its bytes: a
// changed byte changes its count (almost always), so a count taken from
// an item other than the one emitted shows (lenCounter's would not).
type hashCounter struct{}

func (hashCounter) Count(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return len(s)/4 + int(h.Sum32()%101)
}

// FuzzPlanVerify: on any request and plan, Verify of the plan's own
// output agrees with parsing it whole (accepted or not, the same count),
// and an output with one byte changed that Verify accepts, the whole
// parse accepts and counts the same: Verify proves no less.
func FuzzPlanVerify(f *testing.F) {
	for i, s := range []string{chatBody, anthropicBody, responsesBody, `{"input":"x"}`, `{"messages":[1,"a",null,{}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"text","text":"x"}]}]}`,
		`{"system":[],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}]}`} {
		for k, at := range []int{i * 97, len(s) / 2, len(s) - 40} {
			f.Add([]byte(s), []byte{byte(i), 7, 31, 3}[:1+k], uint32(max(at, 0)), byte('A'+k))
		}
	}
	f.Fuzz(func(t *testing.T, body, ops []byte, at uint32, b byte) {
		r, err := Parse(body, "")
		if err != nil {
			return
		}
		est := NewEstimator(hashCounter{}, ImageOpenAI)
		p := planFrom(r, ops)
		out, err := p.Emit()
		if err != nil {
			return
		}
		verifyAgrees(t, p, out, r.Format, est)
		if len(out) == 0 {
			return
		}
		bad := bytes.Clone(out)
		bad[int(at)%len(bad)] = b
		if got, err := p.Verify(bad, est); err == nil {
			if want, werr := verifyByParse(bad, r.Format, est); werr != nil || want != got {
				t.Fatalf("Verify accepted a changed output (%d) that parsing whole does not (%d, %v):\n%s", got, want, werr, bad)
			}
		}
	})
}
