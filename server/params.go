package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd"
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
		return fmt.Errorf("%s: %w", describe(err), ctxd.ErrInvalidParams)
	}
	return nil
}

// describe turns a decoding error into a message naming the field.
func describe(err error) string {
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
		return "unknown field " + f + " (params use snake_case names, see docs/protocol.md)"
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
