package jsonrpc

import (
	"context"
	"encoding/json"
	"testing"
)

func TestIDKey(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`-0`, `0`, true},
		{`"1"`, `1`, false},
		{`"a"`, `"\u0061"`, true},
		{`9007199254740993`, `9007199254740992`, false}, // beyond float64's integers
		{`9223372036854775807`, `9223372036854775807`, true},
		{`1.5`, `1.50`, true},
		{`1.5`, `1`, false},
		{`{}`, `"{}"`, false},
	}
	for _, tt := range tests {
		if got := IDKey(Raw(tt.a)) == IDKey(Raw(tt.b)); got != tt.same {
			t.Errorf("IDKey(%s) == IDKey(%s): %v, want %v (%q, %q)", tt.a, tt.b, got, tt.same, IDKey(Raw(tt.a)), IDKey(Raw(tt.b)))
		}
	}
}

func TestMessageKeepsViews(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"x":[1,2]},"result":null}`)
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	name, ok := m.MethodName()
	if !m.VersionOK() || !ok || name != "m" || string(m.ID) != "7" || string(m.Params) != `{"x":[1,2]}` || !m.Result.IsNull() || m.Result == nil || m.Error != nil {
		t.Fatalf("decoded %+v", m)
	}
	line[len(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"x":[`)] = '9'
	if string(m.Params) != `{"x":[9,2]}` {
		t.Errorf("params %s are a copy, not a view of the line", m.Params)
	}
	var n Message
	json.Unmarshal([]byte(`{"jsonrpc":2,"method":7}`), &n)
	if _, ok := n.MethodName(); ok || n.VersionOK() {
		t.Errorf("a number method or version accepted: %+v", n)
	}
	b, _ := json.Marshal(&Error{Code: InvalidParams, Message: "m"})
	if string(b) != `{"code":-32602,"message":"m"}` {
		t.Errorf("error object %s", b)
	}
}

func TestCalls(t *testing.T) {
	var c Calls
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	key, ok := c.Start(Raw("1"), cancel1)
	if !ok || !c.Busy() {
		t.Fatal("first call not registered")
	}
	if _, ok := c.Start(Raw("1.0"), func() {}); ok {
		t.Error("a second call with the same id (1.0 is 1) registered")
	}
	c.Cancel(Raw(`"1"`))
	if ctx1.Err() != nil {
		t.Error(`cancelling "1" cancelled 1`)
	}
	c.Cancel(Raw("1e0"))
	if ctx1.Err() == nil {
		t.Error("cancelling 1e0 did not cancel 1")
	}
	c.End(key)
	if c.Busy() {
		t.Error("busy after End")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	c.Start(Raw(`"a"`), cancel2)
	c.CancelAll()
	if ctx2.Err() == nil {
		t.Error("CancelAll left a call running")
	}
}
