// Package secrets finds secrets inside ordinary text (source files,
// rendered prompts, conversation messages) with gitleaks' maintained rule
// set, and replaces each with a marker naming the rule:
// "[REDACTED aws-access-token]". The rest of the text is kept. The rules
// are generated from the pinned gitleaks module (rules_gen.go) and run by
// ctxd's own detection loop (detect.go), which finds what gitleaks'
// detector finds; gitleaks itself is linked into the tests only.
//
// Scanning is cached by the SHA-256 of the text, so a warm request whose
// files did not change pays only for hashing.
package secrets

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/vsort"
)

// maxCached bounds each of the cache's two generations. When the newer
// one is full it becomes the older and the older is dropped, so the texts
// seen since the last turn stay: emptying the whole cache at the bound
// (as it was) made a daemon whose persisted clean set was near it (a
// 10k-file workspace) scan most of every request's files again.
const maxCached = 8192

// finding is one secret found in a text: the secret, its rule and line.
type finding struct {
	secret string
	rule   string
	line   int
	// fakeJWT: a JWT whose claims are made up (fakeClaims), read once by
	// the scan; it is kept in a test file or fixture.
	fakeJWT bool
}

// Scanner redacts secrets. It is safe for concurrent use.
type Scanner struct {
	// det is built on the first text not in the cache (detector): a
	// process whose texts are all in the persisted clean set never
	// compiles the rules.
	detOnce  sync.Once
	det      *detector
	detErr   error
	fastOnce sync.Once
	fast     *fastPath // nil: every text gets the full scan (fast.go)

	mu    sync.Mutex
	cache map[[32]byte][]finding // nil findings: a clean text
	// old is the generation before cache (keepLocked), disjoint from it:
	// a text found there moves to cache.
	old map[[32]byte][]finding
	// persisted is how many clean texts the last DecodeClean or AppendClean
	// saw on disk.
	persisted int

	keyOnce sync.Once
	key     string // rulesKey
}

var (
	defaultOnce    sync.Once
	defaultScanner *Scanner
	defaultErr     error
)

// Default returns the process-wide scanner with gitleaks' default rules.
// The rules (a few hundred regular expressions) are compiled once, on the
// first text the scanner has not seen (see DecodeClean); the error is kept
// for callers that predate that and is always nil.
func Default() (*Scanner, error) {
	defaultOnce.Do(func() {
		defaultScanner = &Scanner{cache: map[[32]byte][]finding{}}
	})
	return defaultScanner, defaultErr
}

// detector returns the detector of every rule, compiling the rules on
// first use.
func (s *Scanner) detector() (*detector, error) {
	s.detOnce.Do(func() {
		if s.det != nil {
			return
		}
		rules, allow, err := compiledRules()
		if err != nil {
			s.detErr = fmt.Errorf("secrets: compiling the rules: %w", err)
			return
		}
		s.det = newDetector(rules, allow)
	})
	return s.det, s.detErr
}

// fastPath returns the fast path (nil when the rules do not allow it),
// built once beside the detector.
func (s *Scanner) fastPath(det *detector) *fastPath {
	s.fastOnce.Do(func() {
		s.fast = newFastPath(det)
	})
	return s.fast
}

// Prepare compiles the rules now rather than on the first text not in
// the cache, so a caller about to scan many texts can overlap it with
// other work (a pack compiles them while the tree is walked).
func (s *Scanner) Prepare() {
	if det, err := s.detector(); err == nil {
		s.fastPath(det)
	}
}

// UnavailableRule names the finding that stands for a whole text when the
// rules could not be loaded: the text is withheld rather than passed
// unscanned.
const UnavailableRule = "secret-scanner-unavailable"

// Marker is the text that replaces a secret found by rule.
func Marker(rule string) string { return "[REDACTED " + rule + "]" }

// Redact returns text with every secret replaced by [Marker], and one
// redaction per finding naming source, line (1-based, in text) and rule;
// never the secret. source is the text's path when it is a file's: a
// JWT a test file or fixture mints for a fake user is kept there
// (secrets/jwt.go).
func (s *Scanner) Redact(source, text string) (string, []ctxd.Redaction) {
	if text == "" {
		return text, nil
	}
	return s.redact(source, text, sha256.Sum256(byteview.ReadOnly(text)))
}

// RedactSum is [Scanner.Redact] of a text whose SHA-256 the caller has
// (sum): a gathered file's, taken once for its chunk's hash, is not
// taken again to look up its findings. sum must be text's.
func (s *Scanner) RedactSum(source, text string, sum [32]byte) (string, []ctxd.Redaction) {
	if text == "" {
		return text, nil
	}
	return s.redact(source, text, sum)
}

func (s *Scanner) redact(source, text string, sum [32]byte) (string, []ctxd.Redaction) {
	fs := withoutFixtureJWTs(source, s.findSum(text, sum))
	if len(fs) == 0 {
		return text, nil
	}
	out := replaceSecrets(text, fs, false)
	return out, redactions(source, fs)
}

// RedactSource is [Scanner.Redact] for a source file on its way to a
// structure tool (outline, truncate, find_symbol): a secret spanning
// lines (a PEM key) leaves its line breaks after the marker, so every
// other line keeps its number and the symbols found in the redacted text
// point at the file's own lines.
func (s *Scanner) RedactSource(source string, src []byte) ([]byte, []ctxd.Redaction) {
	if len(src) == 0 {
		return src, nil
	}
	text := string(src)
	fs := withoutFixtureJWTs(source, s.find(text))
	if len(fs) == 0 {
		return src, nil
	}
	return []byte(replaceSecrets(text, fs, true)), redactions(source, fs)
}

// redactions lists fs as redactions of source, without the secrets.
func redactions(source string, fs []finding) []ctxd.Redaction {
	reds := make([]ctxd.Redaction, 0, len(fs))
	for _, f := range fs {
		reds = append(reds, ctxd.Redaction{Source: source, Line: f.line, Rule: f.rule})
	}
	return reds
}

// replaceSecrets returns text with each finding's secret replaced by its
// marker: every occurrence on a line where it was found, and elsewhere
// the occurrences that stand alone (not inside a longer word or
// identifier), so a secret used again later is hidden too, but a common
// word a rule captured ("password" in http://user:password@host) does not
// take "not_a_real_password" with it. Longer secrets come first, so a
// secret containing another is replaced whole. With keepLines, a marker
// is followed by as many line breaks as its secret held.
func replaceSecrets(text string, fs []finding, keepLines bool) string {
	// Each secret once, with its first finding's rule and every line it
	// was found on.
	type secret struct {
		text, rule string
		lines      map[int]bool
	}
	var secs []*secret
	bySecret := map[string]*secret{}
	for _, f := range fs {
		sc := bySecret[f.secret]
		if sc == nil {
			sc = &secret{text: f.secret, rule: f.rule, lines: map[int]bool{}}
			bySecret[f.secret] = sc
			secs = append(secs, sc)
		}
		sc.lines[f.line] = true
	}
	sort.SliceStable(secs, func(i, j int) bool { return len(secs[i].text) > len(secs[j].text) })
	var starts []int // line starts, on first use
	lineOf := func(off int) int {
		if starts == nil {
			starts = append(starts, 0)
			for i := 0; i < len(text); i++ {
				if text[i] == '\n' {
					starts = append(starts, i+1)
				}
			}
		}
		k, _ := slices.BinarySearch(starts, off+1)
		return k // 1-based: the number of line starts at or before off
	}
	type span struct {
		lo, hi int
		marker string
	}
	var spans []span
	overlaps := func(lo, hi int) bool {
		for _, s := range spans {
			if lo < s.hi && s.lo < hi {
				return true
			}
		}
		return false
	}
	for _, sc := range secs {
		for off := 0; off < len(text); {
			k := strings.Index(text[off:], sc.text)
			if k < 0 {
				break
			}
			lo, hi := off+k, off+k+len(sc.text)
			off = hi
			if overlaps(lo, hi) || !sc.lines[lineOf(lo)] && !standsAlone(text, lo, hi) {
				continue
			}
			m := Marker(sc.rule)
			if n := strings.Count(sc.text, "\n"); keepLines && n > 0 {
				m += strings.Repeat("\n", n)
			}
			spans = append(spans, span{lo, hi, m})
		}
	}
	if len(spans) == 0 {
		return text
	}
	vsort.Func(spans, func(a, b span) int { return a.lo - b.lo })
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, s := range spans {
		b.WriteString(text[prev:s.lo])
		b.WriteString(s.marker)
		prev = s.hi
	}
	b.WriteString(text[prev:])
	return b.String()
}

// standsAlone reports that text[lo:hi] does not continue a word or an
// identifier on either side.
func standsAlone(text string, lo, hi int) bool {
	return (lo == 0 || !wordByte(text[lo-1]) || !wordByte(text[lo])) &&
		(hi == len(text) || !wordByte(text[hi]) || !wordByte(text[hi-1]))
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// find scans text, or returns the cached findings of the same text.
func (s *Scanner) find(text string) []finding {
	// Hashed in place: a []byte copy of every text scanned was a twentieth
	// of what a request allocated.
	return s.findSum(text, sha256.Sum256(byteview.ReadOnly(text)))
}

// findSum is find of a text whose SHA-256 is key.
func (s *Scanner) findSum(text string, key [32]byte) []finding {
	s.mu.Lock()
	fs, ok := s.cache[key]
	if !ok {
		if fs, ok = s.old[key]; ok {
			delete(s.old, key)
			s.keepLocked(key, fs)
		}
	}
	s.mu.Unlock()
	if ok {
		return fs
	}
	det, err := s.detector()
	if err != nil {
		return []finding{{secret: text, rule: UnavailableRule, line: 1}} // not cached: never trusted
	}
	fs = s.scan(det, text, true)
	s.mu.Lock()
	if _, ok := s.old[key]; !ok { // another scan of the same text may have kept it
		s.keepLocked(key, fs)
	}
	s.mu.Unlock()
	return fs
}

// keepLocked puts key's findings in the newer generation, turning it into
// the older one first when it is full (see maxCached).
func (s *Scanner) keepLocked(key [32]byte, fs []finding) {
	if _, ok := s.cache[key]; !ok && len(s.cache) >= maxCached {
		s.old, s.cache = s.cache, make(map[[32]byte][]finding, maxCached)
	}
	s.cache[key] = fs
}

// scan runs the rules over text: by the fast path when fast is set and
// the rules allow it, else the full scan (the same findings).
func (s *Scanner) scan(det *detector, text string, fast bool) []finding {
	var raw []rawFinding
	if fp := s.fastPath(det); fast && fp != nil {
		raw = fp.find(text)
	} else {
		raw = det.detect(text)
	}
	return collect(raw, text)
}

// collect turns the rules' findings in text into ctxd's, with ctxd's own
// url-password and password-assignment rules, deduplicated and sorted.
func collect(raw []rawFinding, text string) []finding {
	var fs []finding
	seen := map[finding]bool{}
	for _, f := range raw {
		secret := f.Secret
		if secret == "" {
			secret = f.Match
		}
		// Very short captures would redact unrelated text.
		if len(strings.TrimSpace(secret)) < 8 {
			continue
		}
		fd := finding{secret: secret, rule: f.RuleID, line: f.StartLine + 1}
		if f.RuleID == JWTRule {
			example, fake := jwtKind(secret)
			if example {
				continue // jwt.io's example token is public
			}
			fd.fakeJWT = fake
		}
		if !seen[fd] {
			seen[fd] = true
			fs = append(fs, fd)
		}
	}
	fs = append(fs, urlPasswords(text, seen)...)
	fs = append(fs, passwordAssignments(text, seen)...)
	fs = append(fs, awsSecretKeys(text, seen)...)
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].line != fs[j].line {
			return fs[i].line < fs[j].line
		}
		if fs[i].rule != fs[j].rule {
			return fs[i].rule < fs[j].rule
		}
		return fs[i].secret < fs[j].secret
	})
	return fs
}

// urlPassword matches the password of a URL's user info
// (postgres://user:password@host, redis://:password@host with no user):
// gitleaks' rule set has no rule for it.
var urlPassword = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^/\s:@"'\x60]{0,64}:([^/\s@"'\x60]{6,128})@[a-zA-Z0-9.-]`)

// URLPasswordRule is the rule id of ctxd's own URL-password rule.
const URLPasswordRule = "url-password"

func urlPasswords(text string, seen map[finding]bool) []finding {
	// A match holds "://" and no newline: only the lines holding "://"
	// are scanned (a line's neighbours are newlines either way).
	var fs []finding
	line := 1 // of text[:start]
	for start := 0; ; {
		k := strings.Index(text[start:], "://")
		if k < 0 {
			break
		}
		lo := start + strings.LastIndexByte(text[start:start+k], '\n') + 1
		line += strings.Count(text[start:lo], "\n")
		hi := len(text)
		if e := strings.IndexByte(text[start+k:], '\n'); e >= 0 {
			hi = start + k + e
		}
		for _, m := range urlPassword.FindAllStringSubmatchIndex(text[lo:hi], -1) {
			pw := text[lo+m[2] : lo+m[3]]
			if strings.HasPrefix(pw, "$") || strings.HasPrefix(pw, "{") || strings.HasPrefix(pw, "%") {
				continue // a template variable, not a password
			}
			if placeholderPassword(pw) {
				continue // documentation's example, not a password
			}
			f := finding{secret: pw, rule: URLPasswordRule, line: line}
			if !seen[f] {
				seen[f] = true
				fs = append(fs, f)
			}
		}
		start = hi
	}
	return fs
}

// placeholderPassword reports the passwords documentation writes in
// example URLs (http://user:password@host, postgres://u:changeme@db,
// redis://:<password>@cache, ftp://a:xxxxxx@h): a word that names a
// password, optionally after my/your/the, in any case, a bracketed name or
// one character repeated.
func placeholderPassword(pw string) bool {
	if len(pw) >= 2 && (pw[0] == '<' && pw[len(pw)-1] == '>' || pw[0] == '[' && pw[len(pw)-1] == ']') {
		return true
	}
	if strings.Count(pw, pw[:1]) == len(pw) {
		return true
	}
	w := strings.ToLower(pw)
	for _, p := range []string{"my", "your", "the"} {
		if r, ok := strings.CutPrefix(w, p); ok {
			w = strings.TrimLeft(r, "_-")
			break
		}
	}
	switch w {
	case "password", "passwd", "pass", "pwd", "secret", "changeme", "example", "placeholder":
		return true
	}
	return false
}

// RedactJSON redacts secrets inside a JSON document (a model request's
// messages): each string value is scanned and its secrets replaced, so the
// result is valid JSON whatever the secret's characters. The document is
// rewritten only when something was found; its key order is kept.
func (s *Scanner) RedactJSON(source string, body []byte) ([]byte, []ctxd.Redaction, error) {
	if len(s.find(string(body))) == 0 && len(s.find(jsonUnescapedView(body))) == 0 {
		return body, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	var reds []ctxd.Redaction
	if err := s.copyJSON(dec, &out, source, &reds); err != nil {
		return nil, nil, fmt.Errorf("secrets: redacting JSON: %w", err)
	}
	return out.Bytes(), reds, nil
}

// jsonUnescapedView is body with "\n" escapes turned into newlines, so a
// multi-line key inside a JSON string is seen by the rules.
func jsonUnescapedView(body []byte) string {
	return strings.ReplaceAll(string(body), `\n`, "\n")
}

// copyJSON re-encodes one value token by token, redacting strings.
func (s *Scanner) copyJSON(dec *json.Decoder, out *bytes.Buffer, source string, reds *[]ctxd.Redaction) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		out.WriteRune(rune(t))
		first := true
		for dec.More() {
			if !first {
				out.WriteByte(',')
			}
			first = false
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				kb, _ := json.Marshal(key)
				out.Write(kb)
				out.WriteByte(':')
			}
			if err := s.copyJSON(dec, out, source, reds); err != nil {
				return err
			}
		}
		end, err := dec.Token()
		if err != nil {
			return err
		}
		out.WriteRune(rune(end.(json.Delim)))
	case string:
		red, rs := s.Redact(source, t)
		*reds = append(*reds, rs...)
		b, _ := json.Marshal(red)
		out.Write(b)
	default:
		b, _ := json.Marshal(t)
		out.Write(b)
	}
	return nil
}
