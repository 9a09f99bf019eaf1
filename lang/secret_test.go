package lang

import "testing"

func TestIsSecret(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{".env", true},
		{"config/.env", true},
		{".env.local", true},
		{".env.production", true},
		{".ENV", true},
		{".env.example", false},
		{".env.sample", false},
		{".env.template", false},
		{".envrc", true},
		{"certs/server.pem", true},
		{"tls/server.key", true},
		{"store.p12", true},
		{"store.pfx", true},
		{"AuthKey_ABC.p8", true},
		{"putty.ppk", true},
		{"id_rsa", true},
		{"home/.ssh/id_rsa.pub", true},
		{"id_ed25519", true},
		{"id_ecdsa", true},
		{".netrc", true},
		{".npmrc", true},
		{".pypirc", true},
		{".git-credentials", true},
		{"credentials.json", true},
		{"gcp/credentials-prod.json", true},
		{"credentials", true},
		{".aws/credentials", true},
		{".aws/config", true},
		{".docker/config.json", true},
		{"release.keystore", true},
		{"app.jks", true},
		{"secrets.yaml", true},
		{"config/secrets.json", true},
		{"secret.toml", true},
		{"terraform.tfstate", true},
		{"prod.tfvars", true},
		{".ssh/config", true},
		{"service-account.json", true},
		{"passwords.kdbx", true},
		{`win\path\.env`, true},
		{"etc/shadow", true},
		{"etc/gshadow-", true},
		{"etc/master.passwd", true},
		{".vault-token", true},
		{".s3cfg", true},
		// Code about secrets is not a secret.
		{"credentials.go", false},
		{"auth/secrets.go", false},
		{"secret_test.go", false},
		{"keyboard.go", false},
		{"key.go", false},
		{"docs/keys.md", false},
		{"environment.ts", false},
		{"envelope.go", false},
		{"monkey.py", false},
		{"README.md", false},
		{"package.json", false},
		{"etc/passwd", false}, // names and shells, no hashes
		{"shadow.go", false},
		{"ui/shadows.css", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := IsSecret(tt.path); got != tt.want {
				t.Errorf("IsSecret(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
