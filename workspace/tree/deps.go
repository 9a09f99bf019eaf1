package tree

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ctxd/ctxd"
)

// Bounds of the dependency summary.
const (
	maxManifests     = 20 // manifests summarized
	maxManifestDepth = 3  // directory levels below the root searched
	maxDepsListed    = 40 // dependencies listed per group
)

// Dep is one dependency (or, in Manifest.Scripts, one script and its
// command).
type Dep struct {
	Name    string
	Version string
}

// Manifest is a dependency manifest, summarized.
type Manifest struct {
	// Path is root-relative; Kind is the manifest's base name kind
	// ("go.mod", "package.json", "pyproject.toml", "requirements.txt",
	// "Cargo.toml", "pom.xml", "build.gradle", "Gemfile").
	Path, Kind string
	// Name and Version identify the module or package, when declared.
	Name, Version string
	// Language is the language and its required version ("go 1.22",
	// "python >=3.10", "rust edition 2021", "java 17", "node >=18").
	Language string
	// Deps are the direct dependencies; DevDeps the development and test
	// ones; Indirect counts Go's indirect requirements (not listed).
	Deps, DevDeps []Dep
	Indirect      int
	// Scripts are package.json scripts (Name is the script, Version its
	// command).
	Scripts []Dep
	// Notes are other facts: included requirement files, workspace members.
	Notes []string
}

// manifestKind returns the kind of a manifest file name, or "".
func manifestKind(rel string) string {
	base := path.Base(rel)
	switch base {
	case "go.mod", "package.json", "pyproject.toml", "Cargo.toml", "pom.xml", "Gemfile":
		return base
	case "build.gradle", "build.gradle.kts":
		return "build.gradle"
	}
	if strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt") {
		return "requirements.txt"
	}
	return ""
}

// IsManifest reports whether a path names a dependency manifest this
// package summarizes.
func IsManifest(rel string) bool { return manifestKind(rel) != "" }

// ParseManifest parses the manifest at the root-relative path rel. It
// never panics on bad input; a manifest that cannot be parsed returns an
// error naming the file.
func ParseManifest(rel string, data []byte) (m *Manifest, err error) {
	kind := manifestKind(rel)
	m = &Manifest{Path: rel, Kind: kind}
	switch kind {
	case "go.mod":
		parseGoMod(m, data)
	case "package.json":
		err = parsePackageJSON(m, data)
	case "pyproject.toml":
		err = parsePyproject(m, data)
	case "requirements.txt":
		parseRequirements(m, data)
	case "Cargo.toml":
		err = parseCargo(m, data)
	case "pom.xml":
		err = parsePom(m, data)
	case "build.gradle":
		parseGradle(m, data)
	case "Gemfile":
		parseGemfile(m, data)
	default:
		return nil, fmt.Errorf("parse manifest %s: not a known manifest: %w", rel, ctxd.ErrInvalidParams)
	}
	if err != nil {
		return nil, fmt.Errorf("parse manifest %s: %w", rel, err)
	}
	return m, nil
}

func parseGoMod(m *Manifest, data []byte) {
	inRequire := false
	for line := range bytes.Lines(data) {
		s := strings.TrimSpace(string(line))
		indirect := strings.Contains(s, "// indirect")
		if i := strings.Index(s, "//"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
		if s == "" {
			continue
		}
		f := strings.Fields(s)
		if inRequire {
			if f[0] == ")" {
				inRequire = false
				continue
			}
			addGoReq(m, f, indirect)
			continue
		}
		switch f[0] {
		case "module":
			if len(f) > 1 {
				m.Name = strings.Trim(f[1], "\"`")
			}
		case "go":
			if len(f) > 1 {
				m.Language = "go " + f[1]
			}
		case "toolchain":
			if len(f) > 1 {
				m.Notes = append(m.Notes, "toolchain "+f[1])
			}
		case "require":
			if len(f) > 1 && f[1] == "(" {
				inRequire = true
				continue
			}
			addGoReq(m, f[1:], indirect)
		}
	}
}

func addGoReq(m *Manifest, f []string, indirect bool) {
	if len(f) < 2 {
		return
	}
	if indirect {
		m.Indirect++
		return
	}
	m.Deps = append(m.Deps, Dep{Name: strings.Trim(f[0], "\"`"), Version: f[1]})
}

func parsePackageJSON(m *Manifest, data []byte) error {
	var p struct {
		Name            string            `json:"name"`
		Version         string            `json:"version"`
		Engines         map[string]any    `json:"engines"`
		Dependencies    map[string]any    `json:"dependencies"`
		DevDependencies map[string]any    `json:"devDependencies"`
		PeerDeps        map[string]any    `json:"peerDependencies"`
		Scripts         map[string]any    `json:"scripts"`
		Workspaces      any               `json:"workspaces"`
		Type            string            `json:"type"`
		Extra           map[string]string `json:"-"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	m.Name, m.Version = p.Name, p.Version
	if v, ok := p.Engines["node"].(string); ok {
		m.Language = "node " + v
	}
	m.Deps = depsFromMap(p.Dependencies)
	m.DevDeps = depsFromMap(p.DevDependencies)
	if peers := depsFromMap(p.PeerDeps); len(peers) > 0 {
		m.Notes = append(m.Notes, "peer dependencies: "+joinDeps(peers, " "))
	}
	m.Scripts = depsFromMap(p.Scripts)
	if p.Type != "" {
		m.Notes = append(m.Notes, "type "+p.Type)
	}
	return nil
}

// depsFromMap turns a name → version map into sorted deps; a version that
// is a table keeps its "version" key when it has one.
func depsFromMap(mp map[string]any) []Dep {
	out := make([]Dep, 0, len(mp))
	for name, v := range mp {
		out = append(out, Dep{Name: name, Version: versionOf(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func versionOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for _, k := range []string{"version", "tag", "branch", "rev", "path", "git"} {
			if s, ok := v[k].(string); ok {
				if k == "version" {
					return s
				}
				return k + " " + s
			}
		}
		if w, ok := v["workspace"].(bool); ok && w {
			return "workspace"
		}
	case float64, int64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

func parsePyproject(m *Manifest, data []byte) error {
	var p map[string]any
	if err := toml.Unmarshal(data, &p); err != nil {
		return err
	}
	if proj, ok := p["project"].(map[string]any); ok {
		m.Name, _ = proj["name"].(string)
		m.Version, _ = proj["version"].(string)
		if rp, ok := proj["requires-python"].(string); ok {
			m.Language = "python " + rp
		}
		m.Deps = append(m.Deps, pep508List(proj["dependencies"])...)
		if opt, ok := proj["optional-dependencies"].(map[string]any); ok {
			for _, g := range sortedKeys(opt) {
				m.DevDeps = append(m.DevDeps, pep508List(opt[g])...)
			}
		}
	}
	if groups, ok := p["dependency-groups"].(map[string]any); ok {
		for _, g := range sortedKeys(groups) {
			m.DevDeps = append(m.DevDeps, pep508List(groups[g])...)
		}
	}
	tool, _ := p["tool"].(map[string]any)
	if poetry, ok := tool["poetry"].(map[string]any); ok {
		if m.Name == "" {
			m.Name, _ = poetry["name"].(string)
		}
		if m.Version == "" {
			m.Version, _ = poetry["version"].(string)
		}
		deps, _ := poetry["dependencies"].(map[string]any)
		if py, ok := deps["python"]; ok && m.Language == "" {
			m.Language = "python " + versionOf(py)
		}
		for _, d := range depsFromMap(deps) {
			if d.Name != "python" {
				m.Deps = append(m.Deps, d)
			}
		}
		dev, _ := poetry["dev-dependencies"].(map[string]any)
		m.DevDeps = append(m.DevDeps, depsFromMap(dev)...)
		if groups, ok := poetry["group"].(map[string]any); ok {
			for _, g := range sortedKeys(groups) {
				gm, _ := groups[g].(map[string]any)
				gd, _ := gm["dependencies"].(map[string]any)
				m.DevDeps = append(m.DevDeps, depsFromMap(gd)...)
			}
		}
	}
	return nil
}

func sortedKeys(mp map[string]any) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pep508List parses a TOML array of PEP 508 requirement strings.
func pep508List(v any) []Dep {
	list, _ := v.([]any)
	var out []Dep
	for _, x := range list {
		if s, ok := x.(string); ok {
			if d, ok := pep508(s); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// pep508 splits "requests[socks]>=2.31; python_version<'3.13'" into name
// and version spec (environment markers dropped).
func pep508(s string) (Dep, bool) {
	s, _, _ = strings.Cut(s, ";")
	s = strings.TrimSpace(s)
	if s == "" {
		return Dep{}, false
	}
	i := strings.IndexAny(s, "=<>!~[ @(")
	if i < 0 {
		return Dep{Name: s}, true
	}
	name := strings.TrimSpace(s[:i])
	rest := strings.TrimSpace(s[i:])
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			rest = strings.TrimSpace(rest[j+1:])
		}
	}
	rest = strings.Trim(rest, "() ")
	if name == "" {
		return Dep{}, false
	}
	return Dep{Name: name, Version: rest}, true
}

func parseRequirements(m *Manifest, data []byte) {
	for line := range bytes.Lines(data) {
		s := strings.TrimSpace(string(line))
		if i := strings.Index(s, " #"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.HasPrefix(s, "-") {
			f := strings.Fields(s)
			switch f[0] {
			case "-r", "--requirement", "-c", "--constraint":
				if len(f) > 1 {
					m.Notes = append(m.Notes, "includes "+f[1])
				}
			case "-e", "--editable":
				if len(f) > 1 {
					m.Deps = append(m.Deps, Dep{Name: f[1], Version: "editable"})
				}
			}
			continue
		}
		if d, ok := pep508(s); ok {
			m.Deps = append(m.Deps, d)
		}
	}
}

func parseCargo(m *Manifest, data []byte) error {
	var p map[string]any
	if err := toml.Unmarshal(data, &p); err != nil {
		return err
	}
	if pkg, ok := p["package"].(map[string]any); ok {
		m.Name, _ = pkg["name"].(string)
		m.Version = versionOf(pkg["version"])
		var lang []string
		if e := versionOf(pkg["edition"]); e != "" {
			lang = append(lang, "edition "+e)
		}
		if rv := versionOf(pkg["rust-version"]); rv != "" {
			lang = append(lang, rv)
		}
		if len(lang) > 0 {
			m.Language = "rust " + strings.Join(lang, ", ")
		}
	}
	deps, _ := p["dependencies"].(map[string]any)
	m.Deps = depsFromMap(deps)
	for _, k := range []string{"dev-dependencies", "build-dependencies"} {
		d, _ := p[k].(map[string]any)
		m.DevDeps = append(m.DevDeps, depsFromMap(d)...)
	}
	if ws, ok := p["workspace"].(map[string]any); ok {
		if members, ok := ws["members"].([]any); ok {
			var names []string
			for _, x := range members {
				if s, ok := x.(string); ok {
					names = append(names, s)
				}
			}
			m.Notes = append(m.Notes, "workspace members: "+strings.Join(names, ", "))
		}
		if wd, ok := ws["dependencies"].(map[string]any); ok && len(m.Deps) == 0 {
			m.Deps = depsFromMap(wd)
		}
	}
	return nil
}

type pomDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
}

type pomProp struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

func parsePom(m *Manifest, data []byte) error {
	var p struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
		Version    string `xml:"version"`
		Parent     struct {
			GroupID    string `xml:"groupId"`
			ArtifactID string `xml:"artifactId"`
			Version    string `xml:"version"`
		} `xml:"parent"`
		Properties struct {
			Items []pomProp `xml:",any"`
		} `xml:"properties"`
		Dependencies []pomDep `xml:"dependencies>dependency"`
		Modules      []string `xml:"modules>module"`
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	if err := dec.Decode(&p); err != nil {
		return err
	}
	group := p.GroupID
	if group == "" {
		group = p.Parent.GroupID
	}
	if p.ArtifactID != "" {
		m.Name = strings.TrimPrefix(group+":"+p.ArtifactID, ":")
	}
	m.Version = p.Version
	if p.Parent.ArtifactID != "" {
		m.Notes = append(m.Notes, fmt.Sprintf("parent %s:%s %s", p.Parent.GroupID, p.Parent.ArtifactID, p.Parent.Version))
	}
	for _, it := range p.Properties.Items {
		switch it.XMLName.Local {
		case "java.version", "maven.compiler.release", "maven.compiler.source":
			if m.Language == "" {
				m.Language = "java " + strings.TrimSpace(it.Value)
			}
		}
	}
	for _, d := range p.Dependencies {
		dep := Dep{Name: d.GroupID + ":" + d.ArtifactID, Version: d.Version}
		if d.Scope == "test" || d.Scope == "provided" {
			m.DevDeps = append(m.DevDeps, dep)
		} else {
			m.Deps = append(m.Deps, dep)
		}
	}
	if len(p.Modules) > 0 {
		m.Notes = append(m.Notes, "modules: "+strings.Join(p.Modules, ", "))
	}
	return nil
}

var (
	gradleDepRe  = regexp.MustCompile(`^\s*(implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly|testCompileOnly|annotationProcessor|kapt|ksp|classpath|compile|testCompile)\s*\(?\s*(?:platform\()?\s*["']([^"']+)["']`)
	gradleJavaRe = regexp.MustCompile(`(?:sourceCompatibility\s*=\s*(?:JavaVersion\.VERSION_)?['"]?([\d._]+)|jvmToolchain\s*\(\s*(\d+)|languageVersion\.set\(\s*JavaLanguageVersion\.of\(\s*(\d+))`)
	gradlePlugRe = regexp.MustCompile(`^\s*id\s*\(?\s*["']([^"']+)["']\s*\)?(?:\s*version\s*["']([^"']+)["'])?`)
	gradleVarRe  = regexp.MustCompile(`^\s*(group|version)\s*=\s*["']([^"']+)["']`)
)

func parseGradle(m *Manifest, data []byte) {
	for line := range bytes.Lines(data) {
		s := string(line)
		if mm := gradleDepRe.FindStringSubmatch(s); mm != nil {
			coord := mm[2]
			d := Dep{Name: coord}
			if parts := strings.Split(coord, ":"); len(parts) >= 3 {
				d = Dep{Name: parts[0] + ":" + parts[1], Version: strings.Join(parts[2:], ":")}
			}
			if strings.HasPrefix(mm[1], "test") {
				m.DevDeps = append(m.DevDeps, d)
			} else {
				m.Deps = append(m.Deps, d)
			}
			continue
		}
		if mm := gradleJavaRe.FindStringSubmatch(s); mm != nil && m.Language == "" {
			for _, v := range mm[1:] {
				if v != "" {
					m.Language = "java " + strings.ReplaceAll(v, "_", ".")
					break
				}
			}
		}
		if mm := gradlePlugRe.FindStringSubmatch(s); mm != nil {
			m.Notes = append(m.Notes, strings.TrimSpace("plugin "+mm[1]+" "+mm[2]))
		}
		if mm := gradleVarRe.FindStringSubmatch(s); mm != nil {
			if mm[1] == "group" {
				m.Name = mm[2]
			} else {
				m.Version = mm[2]
			}
		}
	}
}

var (
	gemRe      = regexp.MustCompile(`^\s*gem\s+['"]([^'"]+)['"](.*)$`)
	gemVerRe   = regexp.MustCompile(`['"]([~<>=!]*\s*[\d][^'"]*)['"]`)
	rubyRe     = regexp.MustCompile(`^\s*ruby\s+['"]([^'"]+)['"]`)
	gemGroupRe = regexp.MustCompile(`^\s*group\s+(.+?)\s+do\b`)
	gemDevRe   = regexp.MustCompile(`:(development|test)\b|['"](development|test)['"]`)
	rubyEndRe  = regexp.MustCompile(`^\s*end\b`)
	rubyDoRe   = regexp.MustCompile(`\bdo\b(\s*\|[^|]*\|)?\s*$`)
)

func parseGemfile(m *Manifest, data []byte) {
	// devDepth is the block depth at which a development/test group opened
	// (0 when outside one).
	depth, devDepth := 0, 0
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		if i := strings.Index(s, "#"); i >= 0 && !strings.ContainsAny(s[:i], `'"`) {
			s = s[:i]
		}
		if mm := gemGroupRe.FindStringSubmatch(s); mm != nil {
			depth++
			if devDepth == 0 && gemDevRe.MatchString(mm[1]) {
				devDepth = depth
			}
			continue
		}
		if rubyDoRe.MatchString(s) {
			depth++
			continue
		}
		if rubyEndRe.MatchString(s) {
			if depth == devDepth {
				devDepth = 0
			}
			if depth > 0 {
				depth--
			}
			continue
		}
		if mm := rubyRe.FindStringSubmatch(s); mm != nil {
			m.Language = "ruby " + mm[1]
			continue
		}
		if mm := gemRe.FindStringSubmatch(s); mm != nil {
			var vs []string
			for _, v := range gemVerRe.FindAllStringSubmatch(mm[2], -1) {
				vs = append(vs, v[1])
			}
			d := Dep{Name: mm[1], Version: strings.Join(vs, ", ")}
			if devDepth > 0 || gemDevRe.MatchString(mm[2]) {
				m.DevDeps = append(m.DevDeps, d)
			} else {
				m.Deps = append(m.Deps, d)
			}
		}
	}
}

// Summary renders the manifest in a few lines.
func (m *Manifest) Summary() string {
	var b strings.Builder
	var head []string
	if m.Name != "" {
		head = append(head, strings.TrimSpace(m.Name+" "+m.Version))
	} else if m.Version != "" {
		head = append(head, "version "+m.Version)
	}
	if m.Language != "" {
		head = append(head, m.Language)
	}
	fmt.Fprintf(&b, "%s", m.Path)
	if len(head) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(head, "; "))
	}
	b.WriteString("\n")
	depLine := func(label string, ds []Dep, sep string) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(&b, "  %s: %s\n", label, joinDeps(ds, sep))
	}
	depLine("dependencies", m.Deps, " ")
	if m.Indirect > 0 {
		fmt.Fprintf(&b, "  (+%d indirect)\n", m.Indirect)
	}
	depLine("dev/test dependencies", m.DevDeps, " ")
	depLine("scripts", m.Scripts, ": ")
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	return b.String()
}

func joinDeps(ds []Dep, sep string) string {
	parts := make([]string, 0, min(len(ds), maxDepsListed)+1)
	for i, d := range ds {
		if i == maxDepsListed {
			parts = append(parts, fmt.Sprintf("… %d more", len(ds)-i))
			break
		}
		if d.Version == "" {
			parts = append(parts, d.Name)
		} else {
			parts = append(parts, d.Name+sep+d.Version)
		}
	}
	return strings.Join(parts, ", ")
}

// findManifests picks the manifests to summarize among walked files: at
// the root and down to maxManifestDepth levels, outside vendored and test
// trees, shallowest first, at most maxManifests.
func findManifests(files []string) []string {
	var out []string
	for _, f := range files {
		if !IsManifest(f) || strings.Count(f, "/") > maxManifestDepth {
			continue
		}
		skip := false
		for _, seg := range strings.Split(path.Dir(f), "/") {
			switch seg {
			case "node_modules", "vendor", "third_party", "testdata", "fixtures", "examples", "example", "test", "tests":
				skip = true
			}
		}
		if !skip {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := strings.Count(out[i], "/"), strings.Count(out[j], "/")
		if di != dj {
			return di < dj
		}
		return out[i] < out[j]
	})
	return out
}

// Dependencies summarizes the manifests among files (root-relative walked
// paths), reading each with read. It returns the summary ("" when there
// are none) and warnings for manifests that cannot be read or parsed.
func Dependencies(files []string, read func(rel string) ([]byte, error)) (string, []string) {
	found := findManifests(files)
	var b strings.Builder
	var warnings []string
	for i, rel := range found {
		if i == maxManifests {
			fmt.Fprintf(&b, "… %d more manifests not summarized\n", len(found)-i)
			break
		}
		data, err := read(rel)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("manifest %s: %v", rel, err))
			continue
		}
		m, err := ParseManifest(rel, data)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		b.WriteString(m.Summary())
	}
	return b.String(), warnings
}
