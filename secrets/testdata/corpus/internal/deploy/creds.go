// Package deploy pushes releases. The keys below are FAKE, generated for
// ctxd's secret-scan tests.
package deploy

import (
	"github.com/aws/aws-sdk-go/aws/credentials"
)

// GITHUB_TOKEN authenticates release uploads.
const GITHUB_TOKEN = "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"

const gitlabToken = "glpat-Usu-wzz_mQ6nCuH-GCJ3"

// releaseKey signs release manifests.
const releaseKey = `-----BEGIN EC PRIVATE KEY-----
+IASHA8S56IsSXOVDZi3o10IXyPAIR4S7p98OUjT8ZhC+DRfgWSjc18DTQZJZhPh
307/lcexukShvbkU7yrJWTJwqviqVCv7cpUEqG7w3K1dira4EL6ubpKONuBpCnQd
CBwOhXVX/C+6PAGK/81ItK5AP9ChFgnVKjYozy3m3Ek0h4cCaQRoAuvTDnYDLq8W
WO5F+qhTgTR3/Z6n9YjHi45b5orcwcadbco7PpI+fVgE7B3RVOKa1pbQmffPAqgd
+a3TyaQQAEVWxxhtxr8iNRPG/QanCdzEb1N6++MkW4ANQ+QyBnlvVFxf+UE7z93B
K+T9DPGvggU3fWL7fPVuFMGO9STecezxlzbfOxM6nqvd4c1eJmHrnac3wNAoF5/s
I12Xmrak6L+Kidt6
-----END EC PRIVATE KEY-----`

// ArtifactDigest pins the base image (not a secret).
const ArtifactDigest = "sha256:6105d6cc76af400325e94d588ce511be5bfdbb73b437dc51eca43917d7a43e3d"

// Credentials returns the uploader's static AWS credentials.
func Credentials() *credentials.Credentials {
	return credentials.NewStaticCredentials("ASIA7PBWXGHJOXM5M3CU", "MnqNw6+hCN97rYj7dnQub3opAP5jn4xNZrSvMUTg", "")
}

// Upload sends one artifact.
func Upload(name string) error {
	_ = GITHUB_TOKEN
	_ = gitlabToken
	return nil
}
