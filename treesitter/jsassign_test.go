//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"slices"
	"testing"
)

// TestJSMemberAssignedFunctions: a function assigned to a member is a
// definition named by the member, and a chain of member assignments of
// one function (Express's "res.set = res.header = function header") is
// one under every member's name, with the function's lines; a function
// assigned to a computed member (Express's `app[method] = function` in a
// forEach) is one named by the member's text; a chain that ends in no
// function defines nothing.
func TestJSMemberAssignedFunctions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // name@start-end
	}{
		{"one member", "res.send = function send(body) {\n  return this.end(body);\n};\n", []string{"send@1-3"}},
		{"chain", "'use strict';\nres.set =\nres.header = function header(field, val) {\n  this.setHeader(field, val);\n  return this;\n};\n", []string{"set@2-6", "header@2-6"}},
		{"chain of three, arrow", "a.x = a.y = a.z = (v) => {\n  return v;\n};\n", []string{"x@1-3", "y@1-3", "z@1-3"}},
		{"chain without a function", "a.x = a.y = 3;\n", nil},
		{"computed member", "proto[method] = function (path) {\n  return path;\n};\n", []string{"proto[method]@1-3"}},
		{"computed member in a forEach", "methods.forEach(function (method) {\n  app[method] = function (path) {\n    return this.route(path);\n  };\n});\n", []string{"app[method]@2-4"}},
		{"computed member without a function", "a[k] = 3;\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := Symbols(t.Context(), "javascript", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range fs.Symbols {
				if s.Kind == "function" {
					got = append(got, fmt.Sprintf("%s@%d-%d", s.Name, s.Start, s.End))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("functions %v, want %v", got, tc.want)
			}
		})
	}
}
