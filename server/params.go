package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/editdist"
)

// decode reads params into v strictly: unknown fields and wrong types are
// errors that name the field, so a typo ("tokenBudget") is caught instead
// of silently ignored. Absent or null params leave v at its zero value.
func decode(params json.RawMessage, v any) error {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	if t[0] != '{' {
		return fmt.Errorf("params must be an object (named parameters): %w", ctxd.ErrInvalidParams)
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", describeIn(err, v, t), ctxd.ErrInvalidParams)
	}
	return nil
}

// describeIn is describe for params decoded from raw: an unknown field
// inside a nested object (an open_files item's "cursor") is named with
// where it is and the fields that object takes, not the method's
// top-level fields, which do not hold it.
func describeIn(err error, v any, raw []byte) string {
	f, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return describe(err, v)
	}
	name := strings.Trim(f, `"`)
	where, t, found := locateUnknown(raw, reflect.TypeOf(v), name, "")
	if !found || where == "" {
		return describe(err, v)
	}
	fields := jsonFields(t)
	return "unknown field " + f + " in " + where + suggest(name, fields, "it")
}

// locateUnknown finds the object in raw, read as type t, that holds the
// key name although t's struct there has no such field: it returns the
// object's path ("open_files[0]", "" for the top level) and its struct
// type. Keys match fields without regard to case, as encoding/json's do.
func locateUnknown(raw []byte, t reflect.Type, name, path string) (string, reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return "", nil, false
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return "", nil, false
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ft, ok := fieldType(t, k)
			if !ok {
				if k == name {
					return path, t, true
				}
				continue
			}
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if p, st, found := locateUnknown(obj[k], ft, name, sub); found {
				return p, st, true
			}
		}
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return "", nil, false
		}
		for i, it := range items {
			if p, st, found := locateUnknown(it, t.Elem(), name, fmt.Sprintf("%s[%d]", path, i)); found {
				return p, st, true
			}
		}
	}
	return "", nil, false
}

// fieldType is the type of struct t's field whose JSON name is key (as
// encoding/json matches it: exactly, else without regard to case),
// those of embedded structs included.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	var walk func(t reflect.Type) reflect.Type
	walk = func(t reflect.Type) reflect.Type {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case f.Anonymous && name == "":
				if ft := walk(f.Type); ft != nil {
					return ft
				}
				continue
			case !f.IsExported():
				continue
			case name == "":
				name = f.Name
			}
			if name == key {
				return f.Type
			}
			if fold == nil && strings.EqualFold(name, key) {
				fold = f.Type
			}
		}
		return nil
	}
	if ft := walk(t); ft != nil {
		return ft, true
	}
	return fold, fold != nil
}

// describe turns a decoding error into a message naming the field; for an
// unknown field it suggests the accepted field nearest to it (v is the
// params struct).
func describe(err error, v any) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// Fields of an embedded params struct come prefixed with its Go
		// name ("CompressRequest.model"); the client knows only "model".
		field := te.Field
		if head, rest, ok := strings.Cut(field, "."); ok && (strings.HasSuffix(head, "Params") || strings.HasSuffix(head, "Request")) {
			field = rest
		}
		if field == "" {
			field = "params"
		}
		msg := fmt.Sprintf("field %s: want %s, got a JSON %s", field, kindName(te.Type.String()), te.Value)
		if field == "token_budget" {
			msg += ` such as {"total": 16000} (total, or system, context, user_request and response in tokens)`
		}
		return msg
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + f + suggest(strings.Trim(f, `"`), FieldNames(v), "this method")
	}
	return strings.TrimPrefix(msg, "json: ")
}

func kindName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "map["):
		return "an object"
	}
	return "an object"
}

// suggest is the hint after an unknown field: the accepted field it most
// likely meant (its snake_case spelling, or one a typo away), else the
// list of accepted fields, which taker ("this method", "it") takes.
func suggest(field string, fields []string, taker string) string {
	snake := toSnake(field)
	if slices.Contains(fields, snake) {
		return fmt.Sprintf(" (did you mean %q? params use snake_case names)", snake)
	}
	if best := editdist.Nearest(snake, fields, editdist.Edits(len(snake)/3+1)); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (" + taker + " takes: " + strings.Join(fields, ", ") + "; docs/protocol.md)"
}

// toSnake spells a camelCase or kebab-case name in snake_case.
func toSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '-':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FieldNames lists the JSON names of the params struct v (or a pointer to
// one) in the order of its fields, those of its embedded structs
// included: the fields a method accepts. docs/vocabulary.md is tested
// against it.
func FieldNames(v any) []string { return jsonFields(reflect.TypeOf(v)) }

func jsonFields(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			out = append(out, jsonFields(f.Type)...)
		case !f.IsExported():
		case name != "":
			out = append(out, name)
		default:
			out = append(out, f.Name)
		}
	}
	return out
}
