package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// focusSliceRepo is a small repository where the file a request is about
// is large (it needs a focus view at 8k) and other files repeat the
// request's words: a Python package with a configuration class, a Go
// package with a large test file, and a Python module with a test class.
func focusSliceRepo() map[string]string {
	pyTests := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\n\ndef test_%s_%d():\n    value = compute_%d(%d)\n    assert value > %d\n    assert value < %d\n    assert value != %d\n", prefix, i, i%7, i, i, i+1000, i+3)
		}
		return b.String()
	}
	goTests := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\nfunc Test%s%d(t *testing.T) {\n\tc := newContext()\n\tc.Set(\"k%d\", %d)\n\tif c.Get(\"k%d\") != %d {\n\t\tt.Fatal(\"lost %d\")\n\t}\n}\n", prefix, i, i, i, i, i, i)
		}
		return b.String()
	}
	return map[string]string{
		"go.mod": "module example.com/web\n\ngo 1.26\n",
		"web/config.py": "\"\"\"Configuration.\"\"\"\n" + filler("python", 14) +
			"\n\nclass Timeout:\n    \"\"\"Timeout configuration: connect, read, write and pool.\"\"\"\n\n" +
			"    def __init__(self, timeout=None, *, connect=None, read=None, write=None, pool=None):\n" +
			"        if timeout is None and None in (connect, read, write, pool):\n" +
			"            raise ValueError(\"set a default or all four\")  # defaultsMarker\n" +
			"        self.connect = timeout if connect is None else connect\n" +
			"        self.read = timeout if read is None else read\n" +
			"        self.write = timeout if write is None else write\n" +
			"        self.pool = timeout if pool is None else pool\n\n" +
			"    def as_dict(self):\n        return {\n            \"connect\": self.connect,\n            \"read\": self.read,\n            \"write\": self.write,\n            \"pool\": self.pool,\n        }\n\n" +
			"    def __repr__(self):\n        parts = [\"connect\", \"read\", \"write\", \"pool\"]\n        values = [getattr(self, p) for p in parts]\n        return \"Timeout(%r)\" % (values,)\n" +
			strings.ReplaceAll(filler("python", 14), "_helper", "_mixer"),
		"web/errors.py": "\"\"\"Errors.\"\"\"\n\n\nclass TimeoutError(ValueError):\n    \"\"\"A timeout: connect, read, write or pool.\"\"\"\n\n\nclass ConnectTimeout(TimeoutError):\n    \"\"\"The connect timeout passed.\"\"\"\n\n\ndef explain_defaults(value):\n    \"\"\"Explain the defaults logic of a timeout value.\"\"\"\n    if value is None:\n        raise ValueError(\"only connect is given\")\n    return value\n",
		"web/context.go": "package web\n\nimport \"net\"\n\n// Context is a request context.\ntype Context struct {\n\tRemoteAddr string\n\tproxies    []string\n\tvalues     map[string]int\n}\n\n" +
			"// ClientIP returns the client IP behind a trusted proxy.\nfunc (c *Context) ClientIP() string {\n\thost, _, _ := net.SplitHostPort(c.RemoteAddr)\n\tfor _, p := range c.proxies {\n\t\tif p == host {\n\t\t\treturn \"forwarded\"\n\t\t}\n\t}\n\treturn host\n}\n\n" +
			"func newContext() *Context { return &Context{values: map[string]int{}} }\n\n// Set stores a value.\nfunc (c *Context) Set(k string, v int) { c.values[k] = v }\n\n// Get reads a value.\nfunc (c *Context) Get(k string) int { return c.values[k] }\n" + filler("go", 10),
		"web/context_test.go": "package web\n\nimport \"testing\"\n" + goTests("ContextValue", 40) +
			"\nfunc TestContextClientIP(t *testing.T) {\n\tc := newContext()\n\tc.RemoteAddr = \"10.0.0.1:80\"\n\tc.proxies = []string{\"10.0.0.1\"}\n\tif c.ClientIP() != \"forwarded\" { // clientIPMarkerOne\n\t\tt.Fatal(\"trusted proxy not trusted\")\n\t}\n}\n" +
			goTests("ContextHeader", 30) +
			"\nfunc TestContextClientIPWithSingleHeader(t *testing.T) {\n\tc := newContext()\n\tc.RemoteAddr = \"10.0.0.2:80\"\n\tc.proxies = []string{\"10.0.0.2\"}\n\tif c.ClientIP() != \"forwarded\" { // clientIPMarkerTwo\n\t\tt.Fatal(\"single header behind a trusted proxy\")\n\t}\n}\n" +
			goTests("ContextQuery", 30) +
			"\nfunc TestContextClientIPUntrustedProxy(t *testing.T) {\n\tc := newContext()\n\tc.RemoteAddr = \"10.0.0.3:80\"\n\tif c.ClientIP() != \"10.0.0.3\" { // clientIPMarkerThree\n\t\tt.Fatal(\"untrusted proxy trusted\")\n\t}\n}\n",
		"web/binding.go": "package web\n\n// Binding binds a request body; it changed with the context tests.\ntype Binding interface {\n\tName() string\n}\n" + strings.ReplaceAll(filler("go", 4), "helper", "bind"),
		"web/utils.py":   "\"\"\"Utilities.\"\"\"\n\nimport os\n" + filler("python", 6) + "\n\ndef get_netrc_auth(url, raise_errors=False):\n    \"\"\"Returns the auth tuple for url from netrc.\"\"\"\n    path = os.environ.get(\"NETRC\")\n    if path is None:\n        return None  # netrcMarker\n    return (url, path)\n" + strings.ReplaceAll(filler("python", 6), "_helper", "_mixer"),
		"tests/test_utils.py": "from web.utils import get_netrc_auth\n" + pyTests("super_len", 40) +
			"\n\n\nclass TestGetNetrcAuth:\n    def test_works(self, tmp_path, monkeypatch):\n        monkeypatch.setenv(\"NETRC\", str(tmp_path))\n        auth = get_netrc_auth(\"http://example.com/thing\")  # netrcTestOne\n        assert auth is not None\n\n" +
			"    def test_not_vulnerable_to_bad_url_parsing(self, tmp_path, monkeypatch):\n        monkeypatch.setenv(\"NETRC\", str(tmp_path))\n        auth = get_netrc_auth(\"http://example.com:@evil.com/\")  # netrcTestTwo\n        assert auth is not None\n\n" +
			"    def test_empty_default_credentials_ignored(self, monkeypatch):\n        monkeypatch.delenv(\"NETRC\", raising=False)\n        auth = get_netrc_auth(\"http://httpbin.org/\")  # netrcTestThree\n        assert auth is None\n" +
			pyTests("guess_filename", 40),
		"tests/test_structures.py": "def test_case_insensitive_dict():\n    d = {\"a\": 1}\n    assert d[\"a\"] == 1\n",
	}
}

// TestFocusSlices: the file a request is about keeps the code that
// matters, not a tiny slice, while weaker files come whole: a class the
// request names keeps its matching method's body (httpx.Timeout's
// __init__ was collapsed), and a test file the request names or the tests
// of the named function show every one of their best-matching tests (the
// best one alone tied with the best three, so the file never grew past
// one test).
func TestFocusSlices(t *testing.T) {
	dir := testutil.GitRepo(t, focusSliceRepo())
	e := newEngine(t, dir)
	tests := []struct {
		name, request, target string
		markers               []string
	}{
		{"named class", "why does web.Timeout raise ValueError when only connect is given? explain the defaults logic", "web/config.py", []string{"defaultsMarker", "self.pool = timeout if pool is None else pool"}},
		{"named test file", "add a test in context_test.go for ClientIP behind a trusted proxy", "web/context_test.go", []string{"clientIPMarkerOne", "clientIPMarkerTwo", "clientIPMarkerThree"}},
		{"tests of a qualified function", "write tests for web.utils.get_netrc_auth", "tests/test_utils.py", []string{"netrcTestOne", "netrcTestTwo", "netrcTestThree"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, tt.target)
			for _, m := range tt.markers {
				if !strings.Contains(got.Content, m) {
					t.Errorf("%s at view %q (%d tokens) hides %q (task %s); included %v", tt.target, got.Truncation, got.Tokens, m, env.TaskType, order)
				}
			}
		})
	}
}
