package mcp

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// toolsJSON is what tools/list answers: each tool's name, title,
// description, annotations and input and output schemas, the contract a
// model reads. The schemas are derived from the argument and result types
// in tools.go (TestToolSchemas fails when they drift; `go test ./mcp -run
// TestToolSchemas -update` rewrites them), so the binary carries them as
// data instead of a schema library.
//
//go:embed tools.json
var toolsJSON []byte

// tool is one entry of tools.json, as the server reads it.
type tool struct {
	Name        string  `json:"name"`
	InputSchema *schema `json:"inputSchema"`
}

// schema is the part of JSON Schema the tools' argument schemas use:
// types, object properties (required, no others) and array items.
type schema struct {
	Type                 json.RawMessage    `json:"type"` // "t" or ["t", ...]
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	Items                *schema            `json:"items"`

	types []string // Type decoded
}

// loadTools reads tools.json: the tools/list answer (compacted) and each
// tool's input schema by name.
func loadTools() (json.RawMessage, map[string]*schema, error) {
	var list bytes.Buffer
	if err := json.Compact(&list, toolsJSON); err != nil {
		return nil, nil, fmt.Errorf("tools.json: %w", err)
	}
	var tools []tool
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		return nil, nil, fmt.Errorf("tools.json: %w", err)
	}
	byName := map[string]*schema{}
	for _, t := range tools {
		if t.InputSchema == nil {
			return nil, nil, fmt.Errorf("tools.json: tool %s has no input schema", t.Name)
		}
		if err := t.InputSchema.prepare(); err != nil {
			return nil, nil, fmt.Errorf("tools.json: tool %s: %w", t.Name, err)
		}
		byName[t.Name] = t.InputSchema
	}
	return list.Bytes(), byName, nil
}

// prepare decodes the types of s and the schemas under it.
func (s *schema) prepare() error {
	if len(s.Type) > 0 {
		var one string
		if json.Unmarshal(s.Type, &one) == nil {
			s.types = []string{one}
		} else if err := json.Unmarshal(s.Type, &s.types); err != nil {
			return fmt.Errorf("type %s: %w", s.Type, err)
		}
	}
	for _, p := range s.Properties {
		if err := p.prepare(); err != nil {
			return err
		}
	}
	if s.Items != nil {
		return s.Items.prepare()
	}
	return nil
}

// validate checks the JSON value v against s, as the SDK's validation did
// (its messages: "validating root: validating /properties/path: type: 1
// has type "integer", want "string""). Values are looked at where they
// lie, never copied: a 30 MB string argument is only scanned.
func (s *schema) validate(v raw, at string) (err error) {
	defer func() {
		if err != nil {
			name := at
			if name == "" {
				name = "root"
			}
			err = fmt.Errorf("validating %s: %w", name, err)
		}
	}()
	v = bytes.TrimSpace(v)
	got, err := jsonType(v)
	if err != nil {
		return err
	}
	if len(s.types) > 0 && !slices.Contains(s.types, got) && (got != "integer" || !slices.Contains(s.types, "number")) {
		if len(s.types) == 1 {
			return fmt.Errorf("type: %s has type %q, want %q", display(v), got, s.types[0])
		}
		return fmt.Errorf("type: %s has type %q, want one of %q", display(v), got, strings.Join(s.types, ", "))
	}
	switch got {
	case "object":
		if s.Properties == nil && len(s.Required) == 0 && len(s.AdditionalProperties) == 0 {
			return nil
		}
		var members map[string]raw
		if err := json.Unmarshal(v, &members); err != nil {
			return err
		}
		for _, name := range slices.Sorted(mapKeys(s.Properties)) {
			if m, ok := members[name]; ok {
				if err := s.Properties[name].validate(m, at+"/properties/"+name); err != nil {
					return err
				}
			}
		}
		if string(s.AdditionalProperties) == "false" {
			var extra []string
			for name := range members {
				if _, ok := s.Properties[name]; !ok {
					extra = append(extra, name)
				}
			}
			if len(extra) > 0 {
				slices.Sort(extra)
				return fmt.Errorf("unexpected additional properties %q", extra)
			}
		}
		var missing []string
		for _, name := range s.Required {
			if _, ok := members[name]; !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("required: missing properties: %q", missing)
		}
	case "array":
		if s.Items == nil {
			return nil
		}
		var items []raw
		if err := json.Unmarshal(v, &items); err != nil {
			return err
		}
		for _, it := range items {
			if err := s.Items.validate(it, at+"/items"); err != nil {
				return err
			}
		}
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// jsonType is the JSON Schema type of the valid JSON value v: a number
// with no fraction is an integer.
func jsonType(v raw) (string, error) {
	if len(v) == 0 {
		return "", fmt.Errorf("type: no value")
	}
	switch v[0] {
	case 'n':
		return "null", nil
	case 't', 'f':
		return "boolean", nil
	case '"':
		return "string", nil
	case '[':
		return "array", nil
	case '{':
		return "object", nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !isRangeErr(err) {
		return "", fmt.Errorf("type: %s is not a JSON value", display(v))
	}
	if _, frac := math.Modf(f); frac == 0 {
		return "integer", nil
	}
	return "number", nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// display is v as an error message shows it: a string without its quotes,
// a number as its value, anything cut at 100 bytes (an argument can be megabytes).
func display(v raw) string {
	const most = 100
	if len(v) > 0 && v[0] == '"' && len(v) <= most+2 {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	if len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return fmt.Sprint(f) // as a decoded number prints: 0e0 is 0
		}
	}
	if len(v) > most {
		return string(v[:most]) + "..."
	}
	return string(v)
}
