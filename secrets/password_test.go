package secrets

import (
	"strings"
	"testing"
)

// TestPasswordAssignment: a password written as a literal after a key
// naming it is redacted in YAML, Python, Go, JSON, shell and env files;
// references, placeholders, prompts, paths and facts about passwords are
// kept.
func TestPasswordAssignment(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		secret     string // "" when nothing is found
	}{
		{"yaml quoted", "db:\n  user: shop\n  password: \"S3cr3t-Pa55w0rd!\"\n", "S3cr3t-Pa55w0rd!"},
		{"yaml bare", "db:\n  password: S3cr3t-Pa55w0rd!\n", "S3cr3t-Pa55w0rd!"},
		{"python constant", "import os\n\nDB_PASSWORD = \"Tr0ub4dor&3-horse-battery\"\n", "Tr0ub4dor&3-horse-battery"},
		{"go short decl", "func main() {\n\tpassword := `hunter2!Xy9z`\n}\n", "hunter2!Xy9z"},
		{"json", `{"user": "svc", "passwd": "q9!Lm#2vRt"}`, "q9!Lm#2vRt"},
		{"env", "PGHOST=db\nexport PGPASSWORD=Zx8#kq2LmN\n", "Zx8#kq2LmN"},
		{"keyword argument", "conn = connect(user='svc', password='W9v!c2Qp#z')\n", "W9v!c2Qp#z"},
		{"comparison", "if passphrase == \"0pen-Sesame-42\" {\n", "0pen-Sesame-42"},
		{"env reference", "password: ${DB_PASSWORD}\n", ""},
		{"template", "password: \"{{ .Values.db.password }}\"\n", ""},
		{"placeholder", "password = \"<your-password>\"\n", ""},
		{"example", "password = \"example-pass-1\"\n", ""},
		{"word", "password = \"password\"\n", ""},
		{"prompt", "password = input(\"Password: \")\n", ""},
		{"call", "DB_PASSWORD = os.environ[\"DB_PASSWORD\"]\n", ""},
		{"identifier", "password_field = \"password_confirmation\"\n", ""},
		{"hasher", "PASSWORD_HASHERS = \"pbkdf2_sha256\"\n", ""},
		{"path", "password_file: /run/secrets/db-password-2\n", ""},
		{"form type", `<input type="password" name="password">`, ""},
		{"short", "password = \"ab1!\"\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, reds := s.Redact("f", tc.text)
			var rules []string
			for _, r := range reds {
				rules = append(rules, r.Rule)
			}
			if tc.secret == "" {
				if out != tc.text {
					t.Errorf("redacted %v:\n%s", rules, out)
				}
				return
			}
			if strings.Contains(out, tc.secret) {
				t.Errorf("still holds %q:\n%s", tc.secret, out)
			}
			if !strings.Contains(out, "[REDACTED ") || len(reds) == 0 {
				t.Errorf("no marker or redaction: %v\n%s", rules, out)
			}
		})
	}
}

// TestPasswordAssignmentLines: the redaction names the line the password
// is on.
func TestPasswordAssignmentLines(t *testing.T) {
	text := "a: 1\nb: 2\n\n  password: \"S3cr3t-Pa55w0rd!\"\nc: 3\nadmin_password = 'Qz7!vB2#nM'\n"
	fs := passwordAssignments(text, map[finding]bool{})
	var lines []int
	for _, f := range fs {
		lines = append(lines, f.line)
	}
	if len(fs) != 2 || fs[0].line != 4 || fs[1].line != 6 {
		t.Errorf("lines %v, want [4 6] (%+v)", lines, fs)
	}
}

func FuzzPasswordAssignments(f *testing.F) {
	f.Add("password: \"S3cr3t-Pa55w0rd!\"\n")
	f.Add("PASSW\nPASSPHRASE=x\n\npassword")
	f.Fuzz(func(t *testing.T, text string) {
		for _, fd := range passwordAssignments(text, map[finding]bool{}) {
			if !strings.Contains(text, fd.secret) || fd.line < 1 || fd.line > strings.Count(text, "\n")+1 {
				t.Fatalf("finding %+v", fd)
			}
		}
	})
}
