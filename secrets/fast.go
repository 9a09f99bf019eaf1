package secrets

import (
	"maps"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// The fast path. One rule costs most of a scan: generic-api-key, whose
// keywords (key, token, api, ...) are in nearly every source file, so
// gitleaks runs its expression over the whole text. A match of it cannot
// start on a line without one of its words and cannot span more than
// genericSpan lines (its parts between the word and the secret hold at
// most 3 + 5 whitespace characters, the secret none, the terminator one
// newline), and two matches cannot cross a window boundary. So the rule
// runs only on the windows of lines that start at a line holding one of
// its words (case-insensitively, or any non-ASCII byte, which Unicode
// case folding could turn into one) and reach genericSpan lines further;
// every other rule runs over the whole text as before. The findings are
// the full scan's exactly (TestFastPathMatchesFullScan): gitleaks runs
// the rule only when its keywords prefilter the whole text, and drops a
// generic finding that a specific rule found on the same line, which
// fastFind repeats across the two scans.
//
// The analysis holds for one expression: genericRegex, the rule as
// gitleaks v8.30.1 ships it. Another expression (a gitleaks upgrade)
// turns the fast path off.

const (
	genericID    = "generic-api-key"
	genericRegex = `(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)`
	// genericSpan is how many lines after its word's line a match may
	// end on (9 newlines at most; one more for safety).
	genericSpan = 10
)

// genericWords are lowercase substrings one of which every match of
// genericRegex holds on its first line (passw for passwd and password).
var genericWords = []string{"access", "auth", "api", "credential", "creds", "key", "passw", "secret", "token"}

// fastDetectors splits det into the detector of every rule but the
// generic one and the detector of the generic rule alone, without
// keywords (fastFind applies gitleaks' keyword check itself, on the whole
// text). ok is false when the generic rule is not the one analyzed.
func fastDetectors(det *detect.Detector) (rest, generic *detect.Detector, keywords []string, ok bool) {
	g, found := det.Config.Rules[genericID]
	if !found || g.Regex == nil || g.Regex.String() != genericRegex || len(g.RequiredRules) > 0 || g.Path != nil {
		return nil, nil, nil, false
	}
	restCfg := det.Config
	restCfg.Rules = maps.Clone(det.Config.Rules)
	delete(restCfg.Rules, genericID)
	genCfg := det.Config
	gk := g
	gk.Keywords = nil
	genCfg.Rules = map[string]config.Rule{genericID: gk}
	rest, generic = detect.NewDetector(restCfg), detect.NewDetector(genCfg)
	rest.MaxDecodeDepth, generic.MaxDecodeDepth = det.MaxDecodeDepth, det.MaxDecodeDepth
	for _, k := range g.Keywords {
		keywords = append(keywords, strings.ToLower(k))
	}
	return rest, generic, keywords, true
}

// fastFind returns what det.DetectString(text) returns, by the fast path.
func (f *fastPath) find(text string) []report.Finding {
	out := f.rest.DetectString(text)
	// gitleaks runs a rule with keywords only when one is in the
	// lowercased text.
	lower := strings.ToLower(text)
	run := false
	for _, k := range f.keywords {
		if strings.Contains(lower, k) {
			run = true
			break
		}
	}
	if !run {
		return out
	}
	specific := out
	ws := genericWindows(text)
	if n := len(ws); n > 0 && ws[n-1].end == len(text) && !strings.HasSuffix(text, "\n") {
		// gitleaks gives a finding on an unterminated last line the text
		// from its start as its line (allowlists and "gitleaks:allow"
		// read it): that window starts at the text's start.
		ws = []window{{start: 0, end: len(text), line: 0}}
	}
	for _, w := range ws {
		// A finding's line starts at the newline before it (gitleaks'
		// location): the window holds that newline, as a line of its own.
		start, line := w.start, w.line
		if start > 0 {
			start, line = start-1, line-1
		}
		for _, g := range f.generic.DetectString(text[start:w.end]) {
			g.StartLine += line
			g.EndLine += line
			if !shadowed(g, specific) {
				out = append(out, g)
			}
		}
	}
	return out
}

// shadowed repeats gitleaks' filter: a generic finding is dropped when a
// specific rule found a secret holding it on the same line.
func shadowed(g report.Finding, others []report.Finding) bool {
	for _, o := range others {
		if o.StartLine == g.StartLine && o.RuleID != g.RuleID && strings.Contains(o.Secret, g.Secret) &&
			!strings.Contains(strings.ToLower(o.RuleID), "generic") {
			return true
		}
	}
	return false
}

type fastPath struct {
	rest, generic *detect.Detector
	keywords      []string
}

// window is a run of whole lines: bytes [start, end) of the text, the
// first being line `line` (0-based).
type window struct{ start, end, line int }

// genericWindows returns the windows the generic rule must scan: from
// each line that may hold one of its words to genericSpan lines after,
// merged where they meet.
func genericWindows(text string) []window {
	var out []window
	var cur *window
	last := -1 // the last line the current window must reach
	line := 0
	for start := 0; start < len(text); line++ {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1 // the newline belongs to its line
		}
		if mayHoldWord(text[start:end]) {
			if cur == nil || line > last+1 {
				out = append(out, window{start: start, line: line})
				cur = &out[len(out)-1]
			}
			last = line + genericSpan
		}
		if cur != nil && line <= last {
			cur.end = end
		}
		start = end
	}
	return out
}

// mayHoldWord reports whether a line holds one of genericWords in any
// ASCII case, or a non-ASCII byte.
func mayHoldWord(l string) bool {
	var buf [256]byte
	b := buf[:0]
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c >= 0x80:
			return true
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	low := string(b)
	for _, w := range genericWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
