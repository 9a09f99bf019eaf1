package engine

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestRankedBesideTwoTerms: definitions the focus ranking missed because
// they hold fewer than two of the request's words, or are no function,
// are shown at 8k, within the budget (promptTarget), each in a file far
// larger than the context:
//   - a function whose name alone holds a request word no other
//     definition holds (requests 4791422, "Fix empty netrc entry usage":
//     get_netrc_auth holds "netrc" alone, and a function holding "entry"
//     and "usage" took the focus);
//   - a module-level constant of several lines whose text matches the
//     request (httpx b471f01: the authority regex's userinfo pattern,
//     "Allow URLs where username or password contains unescaped '@'").
func TestRankedBesideTwoTerms(t *testing.T) {
	tests := []struct {
		name, target, body, request, marker string
	}{
		{"function named by one word", "pkg/utils.py",
			"\n\ndef registry_lookup(key):\n    \"\"\"Read an entry of the registry.\"\"\"\n    entry = _registry.get(key)\n    usage = entry.usage if entry else None\n    return usage\n" +
				"\n\ndef get_netrc_auth(url, raise_errors=False):\n    \"\"\"Returns the auth tuple for a url from the user's file.\"\"\"\n    found = _parse(os.path.expanduser(\"~/.netrc\")).authenticators(url)\n    if found:  # authMarker\n        login = 0 if found[0] else 1\n        return (found[login], found[2])\n    return None\n",
			"Fix empty netrc entry usage", "authMarker"},
		{"module constant", "pkg/urlparse.py",
			"\n\nAUTHORITY_REGEX = re.compile(\n    (\n        r\"(?:(?P<userinfo>{userinfo})@)?\" r\"(?P<host>{host})\"\n    ).format(\n        userinfo=\"[^@]*\",  # userinfoMarker\n        host=\"[^:]*\",\n    )\n)\n",
			"Allow a userinfo with an unescaped '@' in the URL authority", "userinfoMarker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{
				tt.target:    "\"\"\"Utilities.\"\"\"\n\nimport os\nimport re\n" + filler("python", 80) + tt.body + strings.ReplaceAll(filler("python", 20), "_helper", "_mixer"),
				"pkg/api.py": "\"\"\"API.\"\"\"\n\nfrom pkg import utils\n\n\ndef request(url):\n    return utils.call(url)\n",
			}
			e := newEngine(t, testutil.GitRepo(t, files))
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, tt.target)
			if !got.Truncated {
				t.Fatalf("%s whole (%d tokens): the test tests nothing", tt.target, got.Tokens)
			}
			if l := markerLine(files[tt.target], tt.marker); !visibleLine(got, files[tt.target], l) {
				t.Errorf("%s at view %q (%d of %d tokens) hides line %d (task %s); included %v\n%s", tt.target, got.Truncation, got.Tokens, got.OriginalTokens, l, env.TaskType, order, got.Content)
			}
		})
	}
}
