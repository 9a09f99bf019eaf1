package lang

import (
	"path"
	"strings"
)

// secretNames are base names (lowercase) of files that hold credentials.
var secretNames = map[string]bool{
	".envrc":           true, // direnv: exports, often of tokens
	".netrc":           true,
	"_netrc":           true,
	".npmrc":           true, // may hold registry auth tokens
	".yarnrc.yml":      true, // may hold npmAuthToken
	".pypirc":          true,
	".git-credentials": true,
	".pgpass":          true,
	".my.cnf":          true,
	".htpasswd":        true,
	".dockercfg":       true,
	"credentials":      true, // ~/.aws/credentials and the like
	"kubeconfig":       true, // Kubernetes client credentials
	// Password hashes of a Unix system (and the backups passwd/shadow
	// tools leave), for a pack or prompt rooted at /etc or a disk image.
	"shadow":        true,
	"shadow-":       true,
	"gshadow":       true,
	"gshadow-":      true,
	"master.passwd": true, // BSD
	"spwd.db":       true, // BSD
	".vault-token":  true, // HashiCorp Vault CLI token
	".s3cfg":        true, // s3cmd keys
	".boto":         true, // gsutil/boto keys
}

// secretExts are extensions (lowercase, with the dot) of key and credential
// stores.
var secretExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".p8": true,
	".keystore": true, ".jks": true, ".ppk": true, ".kdbx": true,
	".tfstate": true, ".tfvars": true, ".secret": true, ".secrets": true,
}

// keyPrefixes are base-name prefixes (lowercase) of SSH private keys (and
// their public halves, which are kept out too for simplicity).
var keyPrefixes = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}

// dataPrefixes are base-name prefixes (lowercase) of credential files when
// the file is data (see dataExts), not code: credentials.json is secret,
// credentials.go is source.
var dataPrefixes = []string{"credentials", "secrets", "secret.", "secret-", "secret_", "service-account", "service_account"}

// dataExts are extensions of configuration data; "" is a file without one.
var dataExts = map[string]bool{
	"": true, ".json": true, ".yaml": true, ".yml": true, ".toml": true, ".ini": true,
	".env": true, ".txt": true, ".xml": true, ".properties": true, ".conf": true, ".cfg": true,
}

// envExampleSuffixes mark .env files that document variables rather than
// hold them; they are meant to be committed and are not secret.
var envExampleSuffixes = []string{".example", ".sample", ".template", ".dist", ".defaults"}

// IsSecret reports whether the file at the slash-separated path p is likely
// to hold credentials: .env and .env.* (but not .env.example, .env.sample,
// .env.template, .env.dist, .env.defaults), .envrc, private keys and
// certificates (*.pem, *.key, *.p12, *.pfx, *.p8, *.ppk, id_rsa*, id_dsa*,
// id_ecdsa*, id_ed25519*), key stores (*.keystore, *.jks, *.kdbx),
// credential stores (.netrc, .npmrc, .yarnrc.yml, .pypirc, .git-credentials,
// .pgpass, .my.cnf, .htpasswd, .dockercfg, .vault-token, .s3cfg, .boto),
// a system's password hashes (shadow, gshadow and their "-" backups,
// master.passwd, spwd.db), credential data files
// (credentials*, secrets*, secret.*, service-account* with no extension or
// a data extension such as .json, .yaml, .toml, .env: credentials.go is
// source and is not secret), Terraform state and variables (*.tfstate,
// *.tfvars), *.secret(s), kubeconfig, and anything under .ssh/, .gnupg/,
// .aws/, .kube/ (.kube/config) or
// .docker/config.json. Secret files are never gathered unless the user names
// them explicitly. The match is on the name only; the content is not read.
func IsSecret(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
	base := path.Base(p)
	if base == ".env" || strings.HasPrefix(base, ".env.") {
		for _, s := range envExampleSuffixes {
			if strings.HasSuffix(base, s) {
				return false
			}
		}
		return true
	}
	if secretNames[base] {
		return true
	}
	if secretExts[path.Ext(base)] {
		return true
	}
	for _, pre := range keyPrefixes {
		if strings.HasPrefix(base, pre) {
			return true
		}
	}
	if dataExts[path.Ext(base)] {
		for _, pre := range dataPrefixes {
			if strings.HasPrefix(base, pre) {
				return true
			}
		}
	}
	// Most paths name none of these directories: no split (the walk asks
	// for every file).
	if strings.Contains(p, ".ssh") || strings.Contains(p, ".gnupg") || strings.Contains(p, ".aws") || strings.Contains(p, ".kube") {
		for seg := range strings.SplitSeq(path.Dir(p), "/") {
			switch seg {
			case ".ssh", ".gnupg", ".aws", ".kube":
				return true
			}
		}
	}
	return strings.HasSuffix(p, ".docker/config.json") || p == ".docker/config.json"
}

// IsStateDir reports whether the root-relative slash path lies in a
// directory that is never gathered: git's own .git and ctxd's state
// directory .ctxd.
func IsStateDir(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == ".git" || first == ".ctxd"
}
