package secrets

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// JWTRule is the id of gitleaks' rule for JSON Web Tokens, the one that
// matches documentation and test fixtures most often: a JWT is
// recognizable by its shape alone, so the example everyone copies from
// jwt.io, and the tokens test suites mint for fake users, look like
// credentials to it.
const JWTRule = "jwt"

// jwtClaims decodes a JWT's payload (its second part, base64url) as a
// JSON object; ok is false for anything else.
func jwtClaims(tok string) (map[string]any, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false
	}
	var claims map[string]any
	if json.Unmarshal(b, &claims) != nil || claims == nil {
		return nil, false
	}
	return claims, true
}

// jwtIOExample holds the claims of jwt.io's example tokens (the debugger's
// and the introduction's), which documentation and test suites copy.
var jwtIOExample = map[string]any{"sub": "1234567890", "name": "John Doe", "iat": float64(1516239022), "admin": true}

// jwtKind reads a JWT's claims once, for the scan that finds it: example
// when they are jwt.io's example, never redacted; fake when they are made
// up, kept in a test file or fixture ([withoutFixtureJWTs]).
func jwtKind(tok string) (example, fake bool) {
	claims, ok := jwtClaims(tok)
	if !ok {
		return false, false
	}
	return exampleClaims(claims), fakeClaims(claims)
}

// exampleClaims reports a payload that is jwt.io's example (its subject
// "1234567890" and nothing but the example's other claims): it is public,
// whoever signed it.
func exampleClaims(claims map[string]any) bool {
	if claims["sub"] != jwtIOExample["sub"] {
		return false
	}
	for k, v := range claims {
		if want, ok := jwtIOExample[k]; !ok || want != v {
			return false
		}
	}
	return true
}

// fakePrefixes and fakeNames are what a test calls its fake user or
// service: a claim word starting with a prefix ("test-user", "mockSvc"),
// or a name itself.
var (
	fakePrefixes = []string{"test", "example", "fake", "dummy", "mock", "sample", "placeholder"}
	fakeNames    = map[string]bool{"foo": true, "bar": true, "baz": true, "john": true, "jane": true, "doe": true, "alice": true, "bob": true, "user": true, "1234567890": true}
)

// fakeClaims reports claims that are obviously made up: at least one text
// claim, and every text claim naming a fake user or value (fakeText).
// Numbers and flags (iat, exp, admin) say nothing either way. A token
// with a real-looking subject or scope stays redacted in a test too.
func fakeClaims(claims map[string]any) bool {
	texts := 0
	for _, v := range claims {
		s, ok := v.(string)
		if !ok {
			continue
		}
		texts++
		if !fakeText(s) {
			return false
		}
	}
	return texts > 0
}

// fakeText reports a claim value one of whose words names a fake user
// or value.
func fakeText(s string) bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		if fakeNames[w] {
			return true
		}
		for _, p := range fakePrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// withoutFixtureJWTs drops from fs the JWTs with made-up claims
// (finding.fakeJWT) when source is a test file or fixture (lang.IsTest);
// fs is not modified.
func withoutFixtureJWTs(source string, fs []finding) []finding {
	if !lang.IsTest(source) {
		return fs
	}
	var out []finding
	for i, f := range fs {
		if f.fakeJWT {
			if out == nil {
				out = append(make([]finding, 0, len(fs)-1), fs[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, f)
		}
	}
	if out == nil {
		return fs
	}
	return out
}
