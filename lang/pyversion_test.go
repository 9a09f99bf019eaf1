package lang

import "testing"

func TestVersionCopy(t *testing.T) {
	tests := []struct{ path, tag, page string }{
		{"docs_src/dependencies/tutorial001.py", "", "docs_src/dependencies/tutorial001.py"},
		{"docs_src/dependencies/tutorial001_py310.py", "py310", "docs_src/dependencies/tutorial001.py"},
		{"docs_src/dependencies/tutorial001_py39.py", "py39", "docs_src/dependencies/tutorial001.py"},
		{"docs_src/dependencies/tutorial001_an.py", "an", "docs_src/dependencies/tutorial001.py"},
		{"docs_src/dependencies/tutorial001_an_py39.py", "an-py39", "docs_src/dependencies/tutorial001.py"},
		{"docs_src/dependencies/tutorial001_02_an_py310.py", "an-py310", "docs_src/dependencies/tutorial001_02.py"},
		{"tests/test_stringified_annotation_dependency_py314.py", "py314", "tests/test_stringified_annotation_dependency.py"},
		{"app/main_py310.go", "", "app/main_py310.go"},   // not Python
		{"app/compat_py3.py", "", "app/compat_py3.py"},   // no version digits after 3
		{"app/tool_py3100.py", "", "app/tool_py3100.py"}, // not a version
		{"app/_an.py", "", "app/_an.py"},
		{"_py310.py", "", "_py310.py"},
		{"app/_py310.py", "", "app/_py310.py"},
		{"app/_an_py310.py", "py310", "app/_an.py"},
		{"app/plan.py", "", "app/plan.py"},
	}
	for _, tt := range tests {
		tag, page := VersionCopy(tt.path)
		if tag != tt.tag || page != tt.page {
			t.Errorf("VersionCopy(%q) = %q, %q; want %q, %q", tt.path, tag, page, tt.tag, tt.page)
		}
	}
}

func TestPreferredVersion(t *testing.T) {
	tests := []struct {
		tags []string
		want int
	}{
		{[]string{"an", "an-py39", "py310", ""}, 3},
		{[]string{"an-py310", "py310"}, 1},
		{[]string{"an-py310", "an-py39", "py310", "py39"}, 2},
		{[]string{"an", "an-py310", "an-py39"}, 1},
	}
	for _, tt := range tests {
		if got := PreferredVersion(tt.tags); got != tt.want {
			t.Errorf("PreferredVersion(%q) = %d, want %d", tt.tags, got, tt.want)
		}
	}
}
