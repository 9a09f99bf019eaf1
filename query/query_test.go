package query

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
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

func TestLanguage(t *testing.T) {
	tests := []struct {
		request      string
		lang         string
		translations bool
	}{
		{"fix how solve_dependencies caches sub-dependencies", "", false},
		{"solve_dependencies 是如何缓存子依赖的", "zh", false},
		{"update the Japanese translation of the tutorial", "ja", true},
		{"sync the i18n pages", "", true},
		{"add Portuguese locales", "pt", true},
		{"the translator's cache", "", true},
		{"localStorage is cleared", "", false},
		{"the locale-aware formatter", "", true},
	}
	for _, tt := range tests {
		q := Parse(tt.request)
		if q.Lang != tt.lang || q.Translations != tt.translations {
			t.Errorf("Parse(%q): Lang %q Translations %v, want %q %v", tt.request, q.Lang, q.Translations, tt.lang, tt.translations)
		}
	}
}

// TestWordText: identifiers written beside another script or between
// full-width or curly punctuation are words of their own.
func TestWordText(t *testing.T) {
	tests := []struct {
		request string
		idents  []string
		words   []string
	}{
		{"修复 solve_dependencies：子依赖的缓存被解析了两次", []string{"solve_dependencies"}, []string{"修复", "solve_dependencies", "子依赖的缓存被解析了两次"}},
		{"修复solve_dependencies中的cache", []string{"solve_dependencies"}, []string{"修复", "solve_dependencies", "中的", "cache"}},
		{"rename “parse_config” please", []string{"parse_config"}, []string{"rename", "parse_config"}},
		{"the naïve café’s parseConfig", []string{"parseConfig"}, []string{"naïve", "café", "s", "parseConfig"}},
		{"исправить parse_config（срочно）", []string{"parse_config"}, []string{"исправить", "parse_config", "срочно"}},
		{"🔨 the translation fixer", nil, []string{"🔨", "translation", "fixer"}}, // symbols stay words, as files are read
	}
	for _, tt := range tests {
		q := Parse(tt.request)
		if !slices.Equal(q.Idents, tt.idents) || !slices.Equal(q.Words, tt.words) {
			t.Errorf("Parse(%q): Idents %q Words %q, want %q %q", tt.request, q.Idents, q.Words, tt.idents, tt.words)
		}
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

// go test -fuzz=FuzzParse ./query
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"why does this reject X? make it accept X",
		"why does the router return 404 instead of 405?",
		"rename Session.merge_environment_settings and update every caller",
		"Traceback (most recent call last):\n  File \"app/db.py\", line 12, in connect\nKeyError",
		"fix `render()` in ./src/app.min.js:3:9 and $HOME/.netrc",
		"\xff\xfe`(", "a::b#c.d", "", ". , ; ? !",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		if !slices.Contains(ctxd.TaskTypes, q.Task) {
			t.Fatalf("task %q is not a task type", q.Task)
		}
		if q.AsksChange && q.Task == ctxd.TaskAnalyze {
			t.Fatalf("a change request detected as analyze: %q", s)
		}
		for _, id := range q.Idents {
			if !utf8.ValidString(id) || id == "" {
				t.Fatalf("bad identifier %q", id)
			}
		}
		for p := range q.Qualifiers {
			if !slices.ContainsFunc(q.Qualified, func(n string) bool { return strings.Contains(n, p) }) {
				t.Fatalf("qualifier %q of no qualified name %q", p, q.Qualified)
			}
		}
		if d := cmp.Diff(q, Parse(s)); d != "" {
			t.Fatalf("not deterministic:\n%s", d)
		}
	})
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
		if got := HasName([]byte(tt.s), []byte(tt.name)); got != (tt.want >= 0) {
			t.Errorf("HasName(%q, %q) = %v", tt.s, tt.name, got)
		}
	}
}

// TestFileNames: the request's words as file names keep a dotfile's dot
// (Paths has no bare ".env") and a bare
// name, and lose what a sentence or a location puts around them.
func TestFileNames(t *testing.T) {
	tests := []struct {
		request string
		names   []string // FileNames, the words that are no file left out
	}{
		{"why is the database password wrong in .env?", []string{".env"}},
		{"the token in config/.npmrc is rejected", []string{"config/.npmrc"}},
		{"ssh fails with id_rsa", []string{"id_rsa"}},
		{"secrets/.env.local: DB_URL is unset.", []string{"secrets/.env.local"}},
		{"read ./.env, then `.envrc`", []string{".env", ".envrc"}},
		{"the auth line config/.npmrc:2:7 fails", []string{"config/.npmrc"}},
		{`on Windows config\.npmrc is not read`, []string{"config/.npmrc"}},
		{"修复config/.npmrc：令牌无效", []string{"config/.npmrc"}},
		{"(see .env.example) and .env again", []string{".env.example", ".env"}},
		{"lint with .eslintrc.js.", []string{".eslintrc.js"}},
		{"KEY=.env in https://example.com/.env", []string{"KEY", ".env"}},
	}
	files := map[string]bool{".env": true, ".envrc": true, "config/.npmrc": true, "id_rsa": true, "secrets/.env.local": true, ".env.example": true, ".eslintrc.js": true, "KEY": true}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			q := Parse(tt.request)
			var names []string
			for _, n := range q.FileNames {
				if files[n] {
					names = append(names, n)
				}
			}
			if d := cmp.Diff(tt.names, names); d != "" {
				t.Errorf("FileNames %q (-want +got):\n%s", q.FileNames, d)
			}
		})
	}
}

// TestPaths: the words that may name a file for gathering. A dotfile with
// an extension keeps its dot, a URL's tail is no path, an ellipsis and a
// leading "./" go.
func TestPaths(t *testing.T) {
	tests := []struct {
		request string
		want    []string
	}{
		{"lint with .eslintrc.js.", []string{".eslintrc.js"}},
		{"the rule in config/.eslintrc.json is ignored", []string{"config/.eslintrc.json"}},
		{"see https://example.com/.env and fix app.py", []string{"app.py"}},
		{"fix ./src/app.py, then ...see util.py", []string{"src/app.py", "util.py"}},
		{`on Windows pkg\util.go panics`, []string{"pkg/util.go"}},
		{"(see gin/context.go)", []string{"gin/context.go"}},
		{"../lib/x.py is read twice", []string{"../lib/x.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Parse(tt.request).Paths); d != "" {
				t.Errorf("Paths (-want +got):\n%s", d)
			}
		})
	}
}

// TestHowTo pins the questions about how to use the project (a README's
// questions) against the code tasks and the commit messages that share
// their words.
func TestHowTo(t *testing.T) {
	tests := []struct {
		request string
		want    bool
	}{
		{"how do I make an option required and show an error when it is missing", true},
		{"How can I add a custom formatter?", true},
		{"how to mount a static directory", true},
		{"is there a way to hide a command from the help?", true},
		{"what is the option for a default value?", true},
		{"what's the setting to disable colors", true},
		{"is there an example of a nested subcommand", true},
		{"how does the router match a path", false}, // how it works: Explain
		{"fix the required option error message", false},
		{"add a how to section to the README", false},                       // a change
		{"Add example of flag groups to docs", false},                       // a cli commit
		{"- Added detailed example for ShouldBindJSON", false},              // a gin commit's body
		{"Unified usage of ArrayBuffer.isView to comprehend Buffer", false}, // express
		// Bug reports that say "how to" (SWE-bench Lite's issues).
		{"### Describe the bug\nThe title is dropped.\n### How to Reproduce\n```\nsphinx-build\n```", false},
		{"`refine()` does not understand how to simplify complex arguments", false},
		{"Not too sure how to debug this one, the subs call fails", false},
		{"I am not sure how to officially post a patch, but the change is trivial", false},
		{"how do I fix this?\nTraceback (most recent call last):\n  File \"/app/x.py\", line 3, in <module>\n    f()\nValueError: bad", false},
		{"How do I simplify it to 0?", true},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			if got := Parse(tt.request).HowTo; got != tt.want {
				t.Errorf("Parse(%q).HowTo = %v, want %v", tt.request, got, tt.want)
			}
		})
	}
}
