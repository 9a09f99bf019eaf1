package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// addLargeTool registers a tool whose arguments may be large (count_tokens
// is given 30 MB texts) with the SDK's raw handler instead of its typed
// one. The typed path validates the arguments as a map of any, marshals
// that map back to JSON and decodes it again: four more copies of the
// text and most of the call's time. Here the arguments are decoded once,
// strictly, which checks what the schema of these argument types says
// (the same schema, derived the same way, is published): a member the
// type does not have, a value of the wrong type and a missing required
// member are refused with the typed path's "validating arguments" tool
// error. In must be a struct whose schema says nothing more than its
// members' types, which are required and which are described.
func addLargeTool[In, Out any](srv *sdk.Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Errorf("tool %s: input schema: %w", t.Name, err))
	}
	out, err := jsonschema.For[Out](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Errorf("tool %s: output schema: %w", t.Name, err))
	}
	tt := *t
	tt.InputSchema, tt.OutputSchema = in, out
	present := presenceType(reflect.TypeFor[In]())
	srv.AddTool(&tt, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
			args = []byte("{}")
		}
		var v In
		if err := decodeArgs(args, &v, present, in.Required); err != nil {
			var res sdk.CallToolResult
			res.SetError(fmt.Errorf("validating \"arguments\": %w", err))
			return &res, nil
		}
		res, o, err := h(ctx, req, v)
		if err != nil {
			var res sdk.CallToolResult
			res.SetError(err)
			return &res, nil
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		res.StructuredContent = json.RawMessage(b)
		return res, nil
	})
}

// decodeArgs decodes args into v, refusing members v does not have and
// values of the wrong type, then checks that every required member is
// there: a member decoded to a non-zero value was; only when one is
// zero are the arguments decoded again, into present, a struct of
// markers that keep nothing of the values. The decoder is the one the
// SDK decodes messages with (segmentio/encoding, a few times faster than
// encoding/json on a long string).
func decodeArgs(args []byte, v any, present reflect.Type, required []string) error {
	rest, err := sjson.Parse(args, v, sjson.DisallowUnknownFields|sjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return errors.New("arguments hold more than one JSON value")
	}
	rv := reflect.ValueOf(v).Elem()
	var p reflect.Value
	for _, name := range required {
		f, ok := fieldByJSONName(rv.Type(), name)
		if ok && !rv.FieldByIndex(f.Index).IsZero() {
			continue
		}
		if !p.IsValid() {
			p = reflect.New(present)
			if _, err := sjson.Parse(args, p.Interface(), sjson.DontMatchCaseInsensitiveStructFields); err != nil {
				return err
			}
		}
		if pf, ok := fieldByJSONName(present, name); !ok || !bool(p.Elem().FieldByIndex(pf.Index).Interface().(seen)) {
			return fmt.Errorf("required property %q is missing", name)
		}
	}
	return nil
}

// seen records that a member was present, keeping nothing of its value.
type seen bool

func (s *seen) UnmarshalJSON([]byte) error { *s = true; return nil }

// presenceType is a struct with in's JSON members, each a seen.
func presenceType(in reflect.Type) reflect.Type {
	var fs []reflect.StructField
	for i := range in.NumField() {
		f := in.Field(i)
		if !f.IsExported() {
			continue
		}
		fs = append(fs, reflect.StructField{Name: f.Name, Type: reflect.TypeFor[seen](), Tag: f.Tag})
	}
	return reflect.StructOf(fs)
}

// fieldByJSONName is t's field whose JSON member is name.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || tag == "" && f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
