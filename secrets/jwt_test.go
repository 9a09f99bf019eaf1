package secrets

import (
	"strings"
	"testing"
)

// TestJWTFixtures: jwt.io's example token is never redacted (it is public,
// and documentation and test suites copy it: zod's tests held it); a JWT
// in a test file or fixture whose text claims all name fake users is
// kept there, and only there; a token with real-looking claims is
// redacted wherever it is.
func TestJWTFixtures(t *testing.T) {
	const (
		jwtIO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
		// jwt.io's claims with one more: not the example.
		jwtIORole = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwicm9sZSI6Im9wcyJ9.kS3f2S0yBqgk0aSxy3aVJ0JcY0c5Oq3ZqAxYtW4yVt8"
		fake      = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZXN0LXVzZXItMSIsIm5hbWUiOiJKYW5lIERvZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ.qeKhN9gw9JLoRvgfow17TlUFYddxhL2YeunkYdwev-4"
		real      = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtcTdyazJtIiwiaWF0IjoxNzY0MDAwMDAwLCJzY29wZSI6InBheW1lbnRzOnJlZnVuZCJ9.dvwS2m4vEIClcg2MU4WtPHciXT6J1bMoor4qZ8ntK70"
		// Numbers only: nothing says the claims are made up.
		numeric = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MTcwMDAwMzYwMH0.3Jx2yS0kq8c9w1mYbq2FzM3sTtR0c8WnV4xH5uQj1kE"
	)
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, source, token string
		redacted            bool
	}{
		{"jwt.io in source", "src/auth.ts", jwtIO, false},
		{"jwt.io in a test", "packages/zod/src/v4/mini/tests/string.test.ts", jwtIO, false},
		{"jwt.io claims and more", "src/auth.ts", jwtIORole, true},
		{"fake user in a test", "src/auth.test.ts", fake, false},
		{"fake user in a fixture", "testdata/tokens.json", fake, false},
		{"fake user in source", "src/auth.ts", fake, true},
		{"real claims in a test", "src/auth.test.ts", real, true},
		{"numeric claims in a test", "src/auth_test.go", numeric, true},
		{"a conversation", "messages", fake, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "const TOKEN = \"" + tt.token + "\";\n"
			out, reds := s.Redact(tt.source, text)
			if got := !strings.Contains(out, tt.token); got != tt.redacted {
				t.Errorf("redacted = %v (%v), want %v:\n%s", got, reds, tt.redacted, out)
			}
			src, _ := s.RedactSource(tt.source, []byte(text))
			if got := !strings.Contains(string(src), tt.token); got != tt.redacted {
				t.Errorf("RedactSource: redacted = %v, want %v", got, tt.redacted)
			}
		})
	}
}
