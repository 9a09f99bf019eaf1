package treesitter

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		path string
		src  string
		want string
	}{
		{"main.go", "", "go"},
		{"a/b/service.py", "", "python"},
		{"stubs.pyi", "", "python"},
		{"app.mjs", "", "javascript"},
		{"App.jsx", "", "javascript"},
		{"store.ts", "", "typescript"},
		{"view.tsx", "", "tsx"},
		{"lib.rs", "", "rust"},
		{"A.java", "", "java"},
		{"list.c", "", "c"},
		{"list.h", "", "c"},
		{"shape.cpp", "", "cpp"},
		{"shape.HPP", "", "cpp"},
		{"Ledger.cs", "", "csharp"},
		{"cart.rb", "", "ruby"},
		{"Rakefile", "", "ruby"},
		{`C:\src\Repo.php`, "", "php"},
		{"Queue.kt", "", "kotlin"},
		{"build.gradle.kts", "", "kotlin"},
		{"Cache.swift", "", "swift"},
		{"README.md", "", ""},
		{"Makefile", "", ""},
		{"bin/tool", "#!/usr/bin/env python3\nprint(1)\n", "python"},
		{"bin/tool", "#!/usr/bin/python3.11 -u\n", "python"},
		{"bin/tool", "#!/usr/bin/env -S node --no-warnings\n", "javascript"},
		{"bin/tool", "#!/usr/bin/env ruby\n", "ruby"},
		{"bin/tool", "#!/bin/sh\n", ""},
		{"bin/tool", "#!", ""},
		{"bin/tool", "no shebang", ""},
	}
	for _, tt := range tests {
		if got := Detect(tt.path, []byte(tt.src)); got != tt.want {
			t.Errorf("Detect(%q, %q) = %q, want %q", tt.path, tt.src, got, tt.want)
		}
	}
	for _, l := range Languages {
		if !supported(l) {
			t.Errorf("%s listed but not supported", l)
		}
	}
}

func TestParseLevel(t *testing.T) {
	for _, l := range Levels {
		got, err := ParseLevel(" " + string(l) + " ")
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %q, %v", l, got, err)
		}
	}
	if _, err := ParseLevel("middle"); err == nil {
		t.Error("ParseLevel(middle): no error")
	}
	// The names a whole view had before there was one name set.
	for _, old := range []string{"none", "whole", "NONE"} {
		if got, err := ParseLevel(old); err != nil || got != Full {
			t.Errorf("ParseLevel(%q) = %q, %v; want full", old, got, err)
		}
	}
}
