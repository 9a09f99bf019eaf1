package tree

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

var manifestTests = []struct {
	path string
	data string
}{
	{"go.mod", `module github.com/acme/shop

go 1.22

toolchain go1.22.3

require (
	github.com/go-chi/chi/v5 v5.0.12
	golang.org/x/sync v0.7.0 // indirect
	"github.com/quoted/mod" v1.0.0
)

require github.com/google/uuid v1.6.0
require golang.org/x/text v0.14.0 // indirect
`},
	{"web/package.json", `{
  "name": "shop-web",
  "version": "1.4.0",
  "type": "module",
  "engines": {"node": ">=18"},
  "scripts": {"build": "vite build", "test": "vitest run"},
  "dependencies": {"react": "^18.2.0", "react-dom": "^18.2.0"},
  "devDependencies": {"vitest": "^1.6.0", "typescript": "~5.4.0"},
  "peerDependencies": {"zod": "3.x"}
}`},
	{"pyproject.toml", `[project]
name = "billing"
version = "0.3.1"
requires-python = ">=3.10"
dependencies = ["requests[socks]>=2.31; python_version<'3.13'", "pydantic ~= 2.6", "click"]

[project.optional-dependencies]
test = ["pytest>=8"]
`},
	{"legacy/pyproject.toml", `[tool.poetry]
name = "legacy"
version = "1.0.0"

[tool.poetry.dependencies]
python = "^3.9"
flask = "^3.0"
sqlalchemy = { version = "^2.0", extras = ["asyncio"] }

[tool.poetry.group.dev.dependencies]
black = "^24.1"
`},
	{"requirements-dev.txt", `# dev tools
-r requirements.txt
-e ./libs/core
pytest==8.1.1  # pinned
black>=24
numpy; platform_machine != "arm64"
--index-url https://example.com/simple
`},
	{"Cargo.toml", `[package]
name = "lexer"
version = "0.2.0"
edition = "2021"
rust-version = "1.74"

[dependencies]
serde = { version = "1.0", features = ["derive"] }
regex = "1.10"
local = { path = "../local" }

[dev-dependencies]
proptest = "1.4"
`},
	{"pom.xml", `<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.4</version></parent>
  <groupId>com.acme</groupId>
  <artifactId>billing</artifactId>
  <version>2.0.0-SNAPSHOT</version>
  <properties><java.version>17</java.version></properties>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
</project>`},
	{"app/build.gradle", `plugins {
    id 'java'
    id 'org.springframework.boot' version '3.2.4'
}
group = 'com.acme'
version = '1.0.0'
java { sourceCompatibility = JavaVersion.VERSION_17 }
dependencies {
    implementation 'com.google.guava:guava:33.1.0-jre'
    implementation("org.slf4j:slf4j-api:2.0.12")
    testImplementation 'org.junit.jupiter:junit-jupiter:5.10.2'
}
`},
	{"Gemfile", `source "https://rubygems.org"
ruby "3.2.2"

gem "rails", "~> 7.1.3"
gem "pg", ">= 1.1", "< 2.0"
gem "puma"

group :development, :test do
  gem "rspec-rails", "~> 6.1"
end

gem "bootsnap", require: false
`},
}

func TestManifests(t *testing.T) {
	var b strings.Builder
	for _, tt := range manifestTests {
		m, err := ParseManifest(tt.path, []byte(tt.data))
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		b.WriteString(m.Summary())
	}
	testutil.GoldenFile(t, "manifests", []byte(b.String()), *update)
}

func TestManifestErrors(t *testing.T) {
	for _, tt := range []struct{ path, data string }{
		{"package.json", "{not json"},
		{"pyproject.toml", "[project\nname="},
		{"Cargo.toml", "= = ="},
		{"pom.xml", "<project><dependencies>"},
	} {
		if _, err := ParseManifest(tt.path, []byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("%s: err = %v, want an error naming the file", tt.path, err)
		}
	}
	if _, err := ParseManifest("README.md", nil); err == nil {
		t.Error("README.md parsed as a manifest")
	}
	// Dependencies skips a broken manifest with a warning and keeps the rest.
	files := map[string]string{"go.mod": "module x\n\ngo 1.22\n", "web/package.json": "{oops", "node_modules/a/package.json": "{}", "a/b/c/d/go.mod": "module deep\n"}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	text, warns := Dependencies(paths, func(rel string) ([]byte, error) {
		if s, ok := files[rel]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("missing")
	})
	if text != "go.mod (x; go 1.22)\n" {
		t.Errorf("text = %q", text)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "web/package.json") {
		t.Errorf("warnings = %q", warns)
	}
}

// go test -fuzz=FuzzManifest ./workspace/tree
func FuzzManifest(f *testing.F) {
	kinds := []string{"go.mod", "package.json", "pyproject.toml", "requirements.txt", "Cargo.toml", "pom.xml", "build.gradle", "Gemfile"}
	for _, tt := range manifestTests {
		for i, k := range kinds {
			if manifestKind(tt.path) == manifestKind(k) {
				f.Add(uint8(i), []byte(tt.data))
			}
		}
	}
	f.Add(uint8(0), []byte("require (\n\tx\n"))
	f.Add(uint8(7), []byte("end\nend\ngroup :test do\n"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		name := kinds[int(kind)%len(kinds)]
		m, err := ParseManifest(name, data)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		s := m.Summary()
		if !strings.HasPrefix(s, name) {
			t.Fatalf("summary does not start with the path: %q", s)
		}
		m2, err := ParseManifest(name, data)
		if err != nil || m2.Summary() != s {
			t.Fatalf("not deterministic")
		}
	})
}
