package secrets

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// ctxd's detection loop over gitleaks' rules. The rules come from
// gitleaks' default configuration, written out as data by a generator
// (rules_gen.go, from TestRulesGenerated) so the binary links neither
// gitleaks' detector nor its configuration loader (viper, archive
// formats, templates: about 6 MB of the release binary). The loop is
// gitleaks' DetectString for a text without a path or commit and with no
// decoding (ctxd's use): the keyword prefilter over the lowercased text,
// each rule's regular expression, its secret group, entropy threshold,
// the global and the rule's allowlists with their condition and target,
// "gitleaks:allow" on the finding's line, required (composite) rules
// within their lines and columns, and the filter that drops a generic
// rule's finding when a specific rule found a secret holding it on the
// same line. The tests run gitleaks' detector beside it on every text they
// scan (bothPaths: TestFastPathMatchesFullScan, TestFastPathEveryRule,
// TestDetectorGitleaksSamples, FuzzFastPath) and compare the findings.

// ruleSpec is one rule as the generator writes it.
type ruleSpec struct {
	ID          string
	Regex       string // "" for a rule with a path only
	Path        string
	SecretGroup int
	Entropy     float64
	Keywords    []string // lowercase
	SkipReport  bool
	Required    []requiredSpec
	Allowlists  []allowSpec
}

// requiredSpec is a rule another needs near its finding; -1 is no bound.
type requiredSpec struct {
	ID                         string
	WithinLines, WithinColumns int
}

// allowSpec is an allowlist: a finding is allowed when one of its checks
// passes (all of them with And). A text has no path or commit, so a
// check of those never passes.
type allowSpec struct {
	And         bool
	RegexTarget string // "" (the secret), "match" or "line"
	Regexes     []string
	Paths       []string
	Commits     []string
	StopWords   []string // lowercase
}

// rule is a compiled ruleSpec.
type rule struct {
	id          string
	re, path    *regexp.Regexp
	secretGroup int
	entropy     float64
	keywords    []string
	skipReport  bool
	required    []requiredSpec
	allow       []*allowlist
}

type allowlist struct {
	and       bool
	target    string
	regexes   []*regexp.Regexp
	pathOrSHA bool // the list checks paths or commits
	stopWords []string
}

// rawFinding is one finding of the loop, as gitleaks reports it (its
// lines 0-based, Line the text of the finding's lines from the newline
// before).
type rawFinding struct {
	RuleID             string
	StartLine, EndLine int
	StartColumn        int
	Secret, Match      string
	Line               string
}

// detector runs a set of rules over texts. Immutable; safe for
// concurrent use.
type detector struct {
	rules []*rule
	byID  map[string]*rule
	allow []*allowlist // global
	// kw finds the rules' keywords in the lowercased text.
	kw       *matcher
	keywords []string
}

// compiledRules compiles the generated rules.
func compiledRules() ([]*rule, []*allowlist, error) {
	var rules []*rule
	for _, s := range ruleSpecs {
		r, err := compileRule(s)
		if err != nil {
			return nil, nil, err
		}
		rules = append(rules, r)
	}
	allow, err := compileAllowlists(globalAllowlists)
	if err != nil {
		return nil, nil, fmt.Errorf("global allowlist: %w", err)
	}
	return rules, allow, nil
}

func compileRule(s ruleSpec) (*rule, error) {
	r := &rule{id: s.ID, secretGroup: s.SecretGroup, entropy: s.Entropy, keywords: s.Keywords, skipReport: s.SkipReport, required: s.Required}
	var err error
	if s.Regex != "" {
		if r.re, err = regexp.Compile(s.Regex); err != nil {
			return nil, fmt.Errorf("rule %s: %w", s.ID, err)
		}
	}
	if s.Path != "" {
		if r.path, err = regexp.Compile(s.Path); err != nil {
			return nil, fmt.Errorf("rule %s: path: %w", s.ID, err)
		}
	}
	if r.allow, err = compileAllowlists(s.Allowlists); err != nil {
		return nil, fmt.Errorf("rule %s: %w", s.ID, err)
	}
	return r, nil
}

func compileAllowlists(specs []allowSpec) ([]*allowlist, error) {
	var out []*allowlist
	for _, a := range specs {
		al := &allowlist{and: a.And, target: a.RegexTarget, pathOrSHA: len(a.Paths)+len(a.Commits) > 0, stopWords: a.StopWords}
		for _, x := range a.Regexes {
			re, err := regexp.Compile(x)
			if err != nil {
				return nil, fmt.Errorf("allowlist: %w", err)
			}
			al.regexes = append(al.regexes, re)
		}
		out = append(out, al)
	}
	return out, nil
}

// newDetector returns a detector of rules (a rule a rule of them
// requires must be among them) with the global allowlists allow.
func newDetector(rules []*rule, allow []*allowlist) *detector {
	d := &detector{rules: rules, byID: map[string]*rule{}, allow: allow}
	seen := map[string]bool{}
	for _, r := range rules {
		d.byID[r.id] = r
		for _, k := range r.keywords {
			if !seen[k] {
				seen[k] = true
				d.keywords = append(d.keywords, k)
			}
		}
	}
	d.kw = newMatcher(d.keywords)
	return d
}

// detect returns the rules' findings in text.
func (d *detector) detect(text string) []rawFinding {
	var present []bool
	if len(d.keywords) > 0 {
		present = make([]bool, len(d.keywords))
		d.kw.walk(strings.ToLower(text), func(_ int, k int32) { present[k] = true })
	}
	found := map[string]bool{}
	for k, ok := range present {
		if ok {
			found[d.keywords[k]] = true
		}
	}
	var nl []int // newline offsets, on first use
	var out []rawFinding
	for _, r := range d.rules {
		run := len(r.keywords) == 0
		for _, k := range r.keywords {
			run = run || found[k]
		}
		if run {
			out = append(out, d.detectRule(text, &nl, r, false)...)
		}
	}
	return filterGeneric(out)
}

// detectRule is gitleaks' detectRule for a text without path, commit or
// decoding; inherited is true when r runs as another rule's required
// rule.
func (d *detector) detectRule(text string, nl *[]int, r *rule, inherited bool) []rawFinding {
	if r.skipReport && !inherited {
		return nil
	}
	if r.path != nil {
		if r.re == nil && r.path.MatchString("") {
			return []rawFinding{{RuleID: r.id, Match: "file detected: "}}
		}
		if !r.path.MatchString("") {
			return nil
		}
	}
	if r.re == nil {
		return nil
	}
	matches := r.re.FindAllStringIndex(text, -1)
	if len(matches) == 0 {
		return nil
	}
	if *nl == nil {
		*nl = make([]int, 0, strings.Count(text, "\n"))
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				*nl = append(*nl, i)
			}
		}
	}
	var out []rawFinding
	for _, m := range matches {
		secret := strings.Trim(text[m[0]:m[1]], "\n")
		start, end := m[0], m[0]+len(secret)
		loc := locate(*nl, text, start, end)
		if end > loc.endLineIndex {
			loc.endLineIndex = end
		}
		f := rawFinding{
			RuleID: r.id, StartLine: loc.startLine, EndLine: loc.endLine, StartColumn: loc.startColumn,
			Line: text[loc.startLineIndex:loc.endLineIndex], Match: secret, Secret: secret,
		}
		if strings.Contains(f.Line, "gitleaks:allow") {
			continue
		}
		if groups := r.re.FindStringSubmatch(f.Secret); len(groups) >= 2 {
			if r.secretGroup > 0 {
				if len(groups) <= r.secretGroup {
					continue
				}
				f.Secret = groups[r.secretGroup]
			} else {
				for _, g := range groups[1:] {
					if len(g) > 0 {
						f.Secret = g
						break
					}
				}
			}
		}
		if r.entropy != 0 && shannonEntropy(f.Secret) <= r.entropy {
			continue
		}
		if allowed(d.allow, f) || allowed(r.allow, f) {
			continue
		}
		out = append(out, f)
	}
	if inherited || len(r.required) == 0 {
		return out
	}
	return d.requiredRules(text, nl, r, out)
}

// requiredRules keeps the findings of r near which each of its required
// rules found something.
func (d *detector) requiredRules(text string, nl *[]int, r *rule, primary []rawFinding) []rawFinding {
	if len(primary) == 0 {
		return nil
	}
	aux := map[string][]rawFinding{}
	for _, q := range r.required {
		if rq := d.byID[q.ID]; rq != nil {
			aux[q.ID] = d.detectRule(text, nl, rq, true)
		}
	}
	var out []rawFinding
	for _, p := range primary {
		all := true
		for _, q := range r.required {
			near := false
			for _, a := range aux[q.ID] {
				near = near || within(p, a, q)
			}
			all = all && near
		}
		if all {
			out = append(out, p)
		}
	}
	return out
}

// within is gitleaks' withinProximity.
func within(p, a rawFinding, q requiredSpec) bool {
	if q.WithinLines >= 0 && absInt(p.StartLine-a.StartLine) > q.WithinLines {
		return false
	}
	return q.WithinColumns < 0 || absInt(p.StartColumn-a.StartColumn) <= q.WithinColumns
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// allowed is gitleaks' checkFindingAllowed for a text without path or
// commit.
func allowed(lists []*allowlist, f rawFinding) bool {
	for _, a := range lists {
		target := f.Secret
		switch a.target {
		case "match":
			target = f.Match
		case "line":
			target = f.Line // no decoding: the finding's line
		}
		regex := false
		if target != "" {
			for _, re := range a.regexes {
				if re.MatchString(target) {
					regex = true
					break
				}
			}
		}
		stop := false
		if f.Secret != "" && len(a.stopWords) > 0 {
			s := strings.ToLower(f.Secret)
			for _, w := range a.stopWords {
				if strings.Contains(s, w) {
					stop = true
					break
				}
			}
		}
		if a.and {
			// Every check the list has must pass; a path or commit check
			// never does.
			if !a.pathOrSHA && (len(a.regexes) == 0 || regex) && (len(a.stopWords) == 0 || stop) {
				return true
			}
		} else if regex || stop {
			return true
		}
	}
	return false
}

// filterGeneric is gitleaks' filter: a generic rule's finding is dropped
// when a specific rule found a secret holding it on the same line.
func filterGeneric(fs []rawFinding) []rawFinding {
	var out []rawFinding
	for _, f := range fs {
		if !isGeneric(f.RuleID) || !shadowed(f, fs) {
			out = append(out, f)
		}
	}
	return out
}

// shadowed: a specific rule's finding among others holds g's secret on
// g's line.
func shadowed(g rawFinding, others []rawFinding) bool {
	for _, o := range others {
		if o.StartLine == g.StartLine && o.RuleID != g.RuleID && strings.Contains(o.Secret, g.Secret) && !isGeneric(o.RuleID) {
			return true
		}
	}
	return false
}

// isGeneric is gitleaks' test for a generic rule (its filter).
func isGeneric(id string) bool { return strings.Contains(strings.ToLower(id), "generic") }

// shannonEntropy is gitleaks': over the runes, divided by the byte length.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		p := float64(n) * inv
		e -= p * math.Log2(p)
	}
	return e
}

// location is where a match lies: its lines (0-based), first column
// (1-based) and the bounds of the text of its lines.
type location struct {
	startLine, endLine, startColumn int
	startLineIndex, endLineIndex    int
}

// locate is gitleaks' location for the match text[start:end], nl being
// the offsets of text's newlines.
func locate(nl []int, text string, start, end int) location {
	var loc location
	prev, lineSet, last := 0, false, 0
	if len(nl) == 0 {
		nl = []int{len(text)}
	}
	for n, at := range nl {
		last = n
		if prev <= start && start < at {
			lineSet = true
			loc.startLine, loc.endLine = n, n
			loc.startColumn = start - prev + 1
			loc.startLineIndex, loc.endLineIndex = prev, at
		}
		if prev < end && end <= at {
			loc.endLine = n
			loc.endLineIndex = at
		}
		prev = at
	}
	if !lineSet {
		loc.startColumn = start - prev + 1
		loc.startLine, loc.endLine = last+1, last+1
		i := 0
		for end+i < len(text) && text[end+i] != '\n' && text[end+i] != '\r' {
			i++
		}
		loc.endLineIndex = end + i
	}
	return loc
}
