package secrets

import (
	"strings"
	"testing"
)

// TestAWSSecretPositional: a secret access key passed beside its key id
// without a name (the fake pair below) is redacted; a hex SHA-1, a
// 40-character word of one case and a secret far from any key id are
// not.
func TestAWSSecretPositional(t *testing.T) {
	const (
		id     = "AKIAQ7RZ4XWLMB2NVEK3"                     // fake
		secret = "Tq9vLm2Xr7KpZ4wN8bHs3JcYf6GdA1eUo0iRnQ5S" // fake
	)
	s, _ := Default()
	tests := []struct {
		name, text string
		leak       bool // the secret must be gone
		keep       string
	}{
		{"go positional", "sess := session.Must(session.NewSession(&aws.Config{\n\tCredentials: credentials.NewStaticCredentials(\"" + id + "\", \"" + secret + "\", \"\"),\n}))\n", true, "NewStaticCredentials"},
		{"python tuple next line", "CREDS = (\n    \"" + id + "\",\n    \"" + secret + "\",\n)\n", true, "CREDS = ("},
		{"csv row", "user,key,secret\ndeploy," + id + "," + secret + "\n", true, "deploy,"},
		{"sha1 beside a key id", "key = \"" + id + "\"\ncommit = \"3f786850e387550fdab836ed7e6dc881de23001b\"\n", false, "3f786850e387550fdab836ed7e6dc881de23001b"},
		{"far from a key id", "x = \"" + secret + "\"\n", false, secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, reds := s.Redact("f", tt.text)
			if tt.leak && strings.Contains(out, secret) {
				t.Errorf("secret kept:\n%s\n%v", out, reds)
			}
			if !strings.Contains(out, tt.keep) {
				t.Errorf("lost %q:\n%s", tt.keep, out)
			}
		})
	}
}

// FuzzAWSSecretKeys: the positional-key rule never panics, and every
// finding is a 40-character candidate of the text, on a line near an
// access key id, mixing cases and digits.
func FuzzAWSSecretKeys(f *testing.F) {
	f.Add("credentials.NewStaticCredentials(\"AKIAQ7RZ4XWLMB2NVEK3\", \"Tq9vLm2Xr7KpZ4wN8bHs3JcYf6GdA1eUo0iRnQ5S\", \"\")")
	f.Add("AKIAQ7RZ4XWLMB2NVEK3\n\n\n\nTq9vLm2Xr7KpZ4wN8bHs3JcYf6GdA1eUo0iRnQ5S")
	f.Add("ASIA\nA3T")
	f.Fuzz(func(t *testing.T, text string) {
		for _, fd := range awsSecretKeys(text, map[finding]bool{}) {
			if len(fd.secret) != 40 || !strings.Contains(text, fd.secret) || !mixedCase(fd.secret) || fd.rule != AWSSecretRule {
				t.Fatalf("finding %+v in %q", fd, text)
			}
			lines := strings.Split(text, "\n")
			if fd.line < 1 || fd.line > len(lines) || !strings.Contains(lines[fd.line-1], fd.secret) {
				t.Fatalf("finding %+v not on its line", fd)
			}
		}
	})
}
