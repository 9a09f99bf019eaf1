package query

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestIdents(t *testing.T) {
	got := requestIdents("German customers see a wrong total. Make Amount print via parse_config and HTTPServer, sha256 and utf8Reader; Fix it. Extend res.links() and `render` here when verify is False or None")
	want := []string{"Amount", "parse_config", "HTTPServer", "sha256", "utf8Reader", "links", "render"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requestIdents (-want +got):\n%s", d)
	}
}

// TestRules pins each rule Parse settles; the comments name the request
// the earlier rule read the other way.
func TestRules(t *testing.T) {
	tests := []struct {
		request                        string
		aboutTests, explain, aboutUses bool
	}{
		{"add a test for ClientIP", true, false, false},
		{"TestParseConfig fails on Windows", true, false, false},
		{"test_utils.py raises on an empty list", true, false, false},
		{"the tests/ folder is slow", true, false, false},
		{"pytest collects nothing", true, false, false},
		{"the OpenAPI spec is out of date", true, false, false},
		{"the latest release drops headers", false, false, false}, // "latest" held "test"
		{"inspect the specific headers", false, false, false},     // "inspect", "specific" held "spec"
		{"respect the contest deadline", false, false, false},     // "respect", "contest"
		{"how does the router match a path", false, true, false},
		{"explain Context.Next", false, true, false},
		{"where are the docs for bind", false, true, false},
		{"add a docstring to parse", false, false, false}, // "docstring" held "docs"
		{"somewhat isolated failure", false, false, false},
		{"rename Foo to Bar", false, false, true},
		{"renaming Foo broke the build", false, false, true}, // "renaming" did not hold "rename"
		{"update the callers of Put", false, false, true},
		{"change the signature of Put", false, false, true},
		{"show every use of Put", false, false, true},
		{"the recaller module", false, false, false},  // "recaller" held "caller"
		{"the usageLimit field", false, false, false}, // "usagelimit" held "usage"
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			q := Parse(tt.request)
			if q.AboutTests != tt.aboutTests || q.Explain != tt.explain || q.AboutUses != tt.aboutUses {
				t.Errorf("Parse(%q): AboutTests %v Explain %v AboutUses %v, want %v %v %v",
					tt.request, q.AboutTests, q.Explain, q.AboutUses, tt.aboutTests, tt.explain, tt.aboutUses)
			}
		})
	}
}

// TestScanWordsAndNames: words end at '$', code names keep it.
func TestScanWordsAndNames(t *testing.T) {
	src := []byte("let $scope = $http.get(url); echo $HOME 2xx a_b")
	var words, names []string
	ScanIdents(src, func(id []byte) { words = append(words, string(id)) })
	ScanNames(src, func(id []byte) { names = append(names, string(id)) })
	if d := cmp.Diff([]string{"let", "scope", "http", "get", "url", "echo", "HOME", "a_b"}, words); d != "" {
		t.Errorf("ScanIdents (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"let", "$scope", "$http", "get", "url", "echo", "$HOME", "a_b"}, names); d != "" {
		t.Errorf("ScanNames (-want +got):\n%s", d)
	}
}

func TestSplitQualified(t *testing.T) {
	tests := []struct{ in, qual, name string }{
		{"Server.Shutdown", "Server", "Shutdown"},
		{"x.Server.Shutdown", "Server", "Shutdown"},
		{"net/http.Get", "http", "Get"},
		{"Store::open", "Store", "open"},
		{"Foo#bar", "Foo", "bar"},
		{" render() ", "", "render"},
		{"plain", "", "plain"},
	}
	for _, tt := range tests {
		if q, n := SplitQualified(tt.in); q != tt.qual || n != tt.name {
			t.Errorf("SplitQualified(%q) = %q, %q; want %q, %q", tt.in, q, n, tt.qual, tt.name)
		}
	}
}

// TestAsksUses: a question about where a name is used, in any task.
func TestAsksUses(t *testing.T) {
	tests := []struct {
		request string
		want    bool
	}{
		{"where is compute_total used?", true},
		{"Where's ClientIP used in the router", true},
		{"find all callers of nameOfFunction", true},
		{"who calls Session.send", true},
		{"what calls parse_config?", true},
		{"list the usages of Put", true},
		{"references to Store.Open", true},
		{"fix the bug where the cache is never used", false}, // a bug report, not a question about uses
		{"the recaller module", false},
		{"add a test for ClientIP", false},
		{"the usageLimit field is wrong", false},
		{"use the new parser here", false},
		{"Update the usage of Annotated in the docs", false},
		{"the caller gets a 500", false},
	}
	for _, tt := range tests {
		if got := Parse(tt.request).AsksUses; got != tt.want {
			t.Errorf("Parse(%q).AsksUses = %v, want %v", tt.request, got, tt.want)
		}
	}
}

func TestNameIndex(t *testing.T) {
	tests := []struct {
		s, name string
		want    int
	}{
		{"def include_router(self):", "include_router", 4},
		{"def include_router_x(self):", "include_router", -1},
		{"x_include_router include_router", "include_router", 17},
		{"$scope.apply", "scope", -1},
		{"ñame name", "name", 6},
		{"anything", "", -1},
		{"a", "a", 0},
	}
	for _, tt := range tests {
		if got := NameIndex(tt.s, tt.name); got != tt.want {
			t.Errorf("NameIndex(%q, %q) = %d, want %d", tt.s, tt.name, got, tt.want)
		}
	}
}
