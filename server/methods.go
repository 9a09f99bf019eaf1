package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ctxd/ctxd/engine"
)

// method is one entry of the method table.
type method struct {
	name string
	// beforeInit allows the method before initialize (lifecycle only).
	beforeInit bool
	// async releases the read loop once the method starts, so it may run
	// concurrently with later requests (and $/cancelRequest can reach it).
	// Methods that change connection state stay in order.
	async  bool
	handle func(ctx context.Context, cl *client, params json.RawMessage) (any, error)
}

// engineMethod is the handler of a method that decodes its params into a
// P and answers with the connection's engine's call, as
// engineMethod((*engine.Engine).Outline).
func engineMethod[P, R any](call func(*engine.Engine, context.Context, P) (R, error)) func(context.Context, *client, json.RawMessage) (any, error) {
	return func(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
		var p P
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return call(cl.engine(), ctx, p)
	}
}

// methods is the method table; each file registers its family in init.
var methods = map[string]method{}

func register(ms ...method) {
	for _, m := range ms {
		if _, dup := methods[m.name]; dup {
			panic(fmt.Sprintf("server: method %s registered twice", m.name))
		}
		methods[m.name] = m
	}
}

// MethodNames lists the served methods, sorted, $/cancelRequest (answered
// ahead of the table, see conn.dispatch) included.
func MethodNames() []string {
	names := make([]string, 0, len(methods)+1)
	for n := range methods {
		names = append(names, n)
	}
	names = append(names, "$/cancelRequest")
	sort.Strings(names)
	return names
}
