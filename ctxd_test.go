package ctxd

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestPriorityJSON(t *testing.T) {
	tests := []struct {
		p    Priority
		want string
	}{
		{PriorityCritical, `"critical"`},
		{PriorityHigh, `"high"`},
		{PriorityMinimal, `"minimal"`},
		{Priority(650), `650`},
		{Priority(0), `0`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.p)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%d) = %s, %v; want %s", tt.p, b, err, tt.want)
		}
		var back Priority
		if err := json.Unmarshal(b, &back); err != nil || back != tt.p {
			t.Errorf("round trip of %d: %d, %v", tt.p, back, err)
		}
	}
	for in, want := range map[string]Priority{`"HIGH"`: PriorityHigh, `"650"`: 650, `800`: PriorityHigh} {
		var p Priority
		if err := json.Unmarshal([]byte(in), &p); err != nil || p != want {
			t.Errorf("Unmarshal(%s) = %d, %v; want %d", in, p, err, want)
		}
	}
	for _, bad := range []string{`"urgent"`, `true`, `{}`} {
		var p Priority
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}

func TestParseTaskType(t *testing.T) {
	for in, want := range map[string]TaskType{"": "", "auto": "", " Debug ": TaskDebug, "TEST": TaskTest, "analyze": TaskAnalyze} {
		got, err := ParseTaskType(in)
		if err != nil || got != want {
			t.Errorf("ParseTaskType(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseTaskType("deploy"); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("ParseTaskType(deploy) = %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatMarkdown, "md": FormatMarkdown, "XML": FormatXML, " xml\n": FormatXML} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("html"); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("ParseFormat(html) = %v", err)
	}
}

func TestBudget(t *testing.T) {
	for _, total := range []int{1, 7, 999, 8000, 128001} {
		b := NewBudget(total, DefaultShares)
		if err := b.Validate(); err != nil {
			t.Errorf("NewBudget(%d) = %+v: %v", total, b, err)
		}
	}
	b := NewBudget(8000, DefaultShares)
	if b != (Budget{Total: 8000, System: 800, Context: 4000, UserRequest: 800, Response: 2400}) {
		t.Errorf("default split %+v", b)
	}
	c := b.WithContext(6000)
	if c.Context != 6000 || c.Total != 10000 || c.Validate() != nil {
		t.Errorf("WithContext: %+v", c)
	}
	bad := []Budget{{Total: 0}, {Total: 10, System: -1, Context: 11}, {Total: 10, Context: 5}}
	for _, b := range bad {
		if err := b.Validate(); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("Validate(%+v) = %v", b, err)
		}
	}
}

func TestSharesValidate(t *testing.T) {
	if err := DefaultShares.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Shares{{Context: 1.5}, {System: -0.1, Context: 1.1}, {Context: 0.5}} {
		if err := s.Validate(); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("Validate(%+v) = %v", s, err)
		}
	}
}

func TestDefaultBudgetFor(t *testing.T) {
	tests := []struct {
		name          string
		window, total int
	}{
		{"unknown window", 0, 8000},
		{"smaller than the default", 4096, 4096},
		{"gpt-4 8k", 8192, 8000},
		{"gpt-3.5 16k", 16385, 8000},
		{"gpt-4o 128k", 128_000, 16000},
		{"claude 200k", 200_000, 25000},
		{"gpt-5 400k", 400_000, 32000},
		{"gemini 1M", 1_048_576, 32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DefaultBudgetFor(tt.window); got != tt.total {
				t.Errorf("DefaultBudgetFor(%d) = %d, want %d", tt.window, got, tt.total)
			}
		})
	}
}
