package secrets

import (
	"regexp"
	"strings"
)

// AWSSecretRule is the rule id of ctxd's positional AWS secret key rule.
const AWSSecretRule = "aws-secret-access-key"

// awsKeyID matches an AWS access key id (gitleaks' aws-access-token rule
// finds it); awsSecret a 40-character secret access key standing alone:
// not inside a longer run of its alphabet.
var (
	awsKeyID  = regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)
	awsSecret = regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])`)
)

// awsPairLines is how many lines after (and before) a key id a secret key
// passed beside it is looked for.
const awsPairLines = 3

// awsSecretKeys finds the secret access key written beside an access key
// id without a name that says so: passed positionally
// (credentials.NewStaticCredentials("AKIA…", "<40 chars>", ""), a
// tuple, a CSV row). gitleaks' rules find the key id and the secret only
// when a name such as aws_secret_access_key stands before it. A candidate
// must mix upper case, lower case and digits (a SHA-1 in hex does not);
// one another rule found already keeps that rule's name.
func awsSecretKeys(text string, seen map[finding]bool) []finding {
	if !strings.Contains(text, "A3T") && !strings.Contains(text, "AKIA") && !strings.Contains(text, "ASIA") &&
		!strings.Contains(text, "ABIA") && !strings.Contains(text, "ACCA") {
		return nil
	}
	found := map[string]bool{} // secrets another rule found already
	for f := range seen {
		found[f.secret] = true
	}
	var fs []finding
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !awsKeyID.MatchString(l) {
			continue
		}
		for j := max(0, i-awsPairLines); j <= min(len(lines)-1, i+awsPairLines); j++ {
			for _, m := range awsSecret.FindAllStringSubmatch(lines[j], -1) {
				if !mixedCase(m[1]) || found[m[1]] {
					continue
				}
				f := finding{secret: m[1], rule: AWSSecretRule, line: j + 1}
				if !seen[f] {
					seen[f] = true
					fs = append(fs, f)
				}
			}
		}
	}
	return fs
}

// mixedCase reports s holding an upper-case letter, a lower-case letter
// and a digit.
func mixedCase(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}
