package smart

import (
	"strings"

	"github.com/ctxd/ctxd/compact/request"
)

// maskPlan is which tool outputs the masking steps have masked, below
// pressure: at[k] is the count of outputs there were at the step that
// masked output k (oldest first), 0 while it is whole; last is the count
// at the latest step (0: none yet).
//
// The plan is the stepping rule replayed over the request's own outputs,
// oldest first, as if each had been the latest: at count m an output is
// due when it is MaskHorizon outputs old or more, or, when larger than
// MaskBig tokens and not a file read, MaskBigHorizon outputs old (and m
// is past the horizon: a session shorter than it goes byte for byte). A
// file read stays whole while its file is in play, up to the horizon
// however large it is: it is the code the agent is about to change
// (users want files in view). In play means one of the latest
// max(MaskBigHorizon, ReadInPlay) calls (the read's own counts) names
// its file, or an error they report does; a large read is due once the
// agent has moved away from it (movedAway), or once a later call edits
// the file or reads its lines again (request.Superseded: its text is out
// of date or shown again), from that many outputs old. A large log, test
// run, search or listing is masked early, its critical lines and
// locations kept in the masked view. A step masks every due output.
// Each decision depends only on the outputs up to m and the items before
// them, which the next turn's request repeats: the plan of turn t+1 is
// that of turn t plus what its new outputs bring, so a decision never
// changes between steps and the forwarded prefix only grows (provider
// prompt caches hold).
type maskPlan struct {
	at   []int
	last int
	// byCall is each output's index by its call id (staleReads reads it
	// too).
	byCall map[string]int
}

// masked reports output k masked by a step.
func (p *maskPlan) masked(k int) bool { return k < len(p.at) && p.at[k] > 0 }

// maskSaving estimates what masking an output of tokens tokens saves (a
// masked view keeps a head, the critical lines and a reference: about
// maskViewTokens); outputs that save under maskMinSaving stay whole.
func maskSaving(tokens int) int {
	if s := tokens - maskViewTokens; s >= maskMinSaving {
		return s
	}
	return 0
}

// maskViewTokens is the typical size of a masked view (head, a few
// critical lines, the reference), for the step rule's estimate only.
const maskViewTokens = 250

// planMasking replays the stepping rule over outputs (oldest first).
//
// Steps come every step outputs (MaskStep), counted from the horizon.
// Without MaskPaced a step masks every due output, as a boundary that
// moves step outputs at a time. With MaskPaced it masks the due outputs
// from its cheapest cut on (cheapestCut): a step rewrites the request
// from the first output it masks, so a small old output whose masking
// would re-send everything after it waits until a step that masks
// larger ones near it pays for the rewrite; outputs more than
// maskCutScan old are masked whatever it costs.
func (r *run) planMasking(outputs []*cand, step int, sup map[string]request.Supersession) maskPlan {
	n := len(outputs)
	p := maskPlan{at: make([]int, n)}
	h := r.c.MaskHorizon
	if h <= 0 || n <= h {
		return p
	}
	// hb: the age of a large output that is not a read; hr: that of a
	// large read out of play (never younger than ReadInPlay: the read
	// and the call after it keep it in play).
	hb, hr := h, h
	if r.c.MaskBig > 0 && r.c.MaskBigHorizon > 0 {
		hb = min(h, r.c.MaskBigHorizon)
		hr = min(h, max(hb, ReadInPlay))
	}
	// edited[k]: the output of the call that supersedes read k (a later
	// read of its lines or an edit of its file), n when none.
	edited := make([]int, n)
	p.byCall = make(map[string]int, n)
	for k, c := range outputs {
		edited[k] = n
		p.byCall[c.seg.CallID()] = k
	}
	for k, c := range outputs {
		// sup is by call id and holds reads only; the fileRead check
		// matters when a client reuses a call id for another call: only
		// a read's own supersession counts.
		if sp, ok := sup[c.seg.CallID()]; ok && r.fileRead(c.seg) {
			if j, ok := p.byCall[sp.By]; ok && j > k {
				edited[k] = j
			}
		}
	}
	var cum []int // cum[i]: the tokens of the items before item i
	if r.c.MaskPaced {
		items := r.req.Items
		cum = make([]int, len(items)+1)
		for i, it := range items {
			cum[i+1] = cum[i] + r.est.Item(it)
		}
	}
	// due: the outputs due and not yet masked, in the order they became
	// due (each enters once and leaves at the step that masks it).
	var due []int
	oldest := n // the oldest output in due
	added := make([]bool, n)
	add := func(k int) {
		added[k] = true
		due = append(due, k)
		oldest = min(oldest, k)
	}
	for m := 1; m <= n; m++ {
		// At count m output m-1-h is h outputs old; a large one
		// m-1-hb is hb old, a large read m-1-hr hr old.
		if k := m - 1 - hb; hb < h && k >= 0 && int(outputs[k].seg.Tokens) > r.c.MaskBig && !r.fileRead(outputs[k].seg) {
			add(k)
		}
		// A large read whose file was since edited or read again is due
		// like any large output, and so is one the agent moved away
		// from (movedAway).
		for k := max(m-h, 0); hr < h && k <= m-1-hr; k++ {
			if !added[k] && int(outputs[k].seg.Tokens) > r.c.MaskBig && (edited[k] < m || r.movedAway(outputs, k, m, hr)) {
				add(k)
			}
		}
		if k := m - 1 - h; k >= 0 && !added[k] {
			add(k)
		}
		if m <= h || len(due) == 0 || (m-h)%step != 0 {
			continue
		}
		cut := oldest
		if r.c.MaskPaced {
			cut = cheapestCut(outputs, p.at, added, oldest, cum, m)
		}
		kept := due[:0]
		oldest = n
		for _, k := range due {
			if k >= cut {
				p.at[k] = m
			} else {
				kept = append(kept, k)
				oldest = min(oldest, k)
			}
		}
		due, p.last = kept, m
	}
	return p
}

// ReadInPlay is how many of the latest calls keep a file read in play
// when one of them names its file (or an error it reports does): the
// read's own call and the one after it at least, so a read is never
// masked before it is two outputs old, whatever MaskBigHorizon says of
// other large outputs. An agent reads a file, then often runs a script
// or a search that does not name it before it edits the file
// (BENCHMARKS.md, "h26bill2": keeping the latest read whole).
const ReadInPlay = 2

// movedAway reports file read k as one the agent has moved away from at
// count m: none of the calls of the latest away outputs (those of
// outputs m-away..m-1, all after k) names its file (its path, or its
// base name when longer than four characters), and none of those outputs
// reports a failure that names it (a traceback through it, a failing
// test in it). A read whose file is still in play (edited, searched,
// run, read again at other lines, in an open error) stays whole until
// the horizon. Only the calls and outputs up to output m-1 decide, so
// the decision never changes between steps.
func (r *run) movedAway(outputs []*cand, k, m, away int) bool {
	ci := r.calls[outputs[k].seg.CallID()]
	if !ci.isRead || ci.read.Path == "" {
		return false
	}
	p := ci.read.Path
	base := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p)-i > 4 {
		base = p[i+1:]
	}
	names := func(t string) bool { return strings.Contains(t, p) || base != "" && strings.Contains(t, base) }
	for j := max(k+1, m-away); j < m; j++ {
		o := outputs[j]
		if names(r.calls[o.seg.CallID()].args) || (o.seg.IsError || o.in != nil && o.in.Failure) && names(o.seg.Text) {
			return false
		}
	}
	return true
}

// cheapestCut is where a step at count m starts masking: of the due
// outputs, those from the cut on are masked, the older ones wait for a
// later step. Masking from output c on rewrites everything after it as
// forwarded (masked outputs at their views' size), which the provider
// bills anew (0.9 of those tokens more than a cached read), and saves
// what the new views save on every later turn (counted for maskPayTurns
// turns, a tenth each); the cut with the most value wins, len(outputs)
// (mask none) when none pays. Only the latest maskCutScan outputs are
// weighed: older due ones are masked whatever it costs.
func cheapestCut(outputs []*cand, at []int, added []bool, oldest int, cum []int, m int) int {
	if oldest < m-maskCutScan {
		return oldest
	}
	end := cum[outputs[m-1].ref.Item+1]
	best, cut, saved, shrunk := 0.0, len(outputs), 0, 0
	for k := m - 1; k >= oldest; k-- {
		sv := maskSaving(int(outputs[k].seg.Tokens))
		if added[k] {
			shrunk += sv // masked before, or due now
		}
		if !added[k] || at[k] > 0 {
			continue
		}
		saved += sv
		v := 0.1*maskPayTurns*float64(saved) - 0.9*float64(end-cum[outputs[k].ref.Item]-shrunk)
		if v > best {
			best, cut = v, k
		}
	}
	return cut
}

// maskPayTurns is how many later turns a step's saving is counted for
// when choosing its cut; maskCutScan bounds the outputs weighed. 15 (was
// 25) makes a step wait until the due outputs are worth its rewrite
// over fewer turns: fewer, cheaper rewrites. At chat 128k, Anthropic
// prices (a rewrite billed at 1.25x), with the proxy's defaults: 25
// turns 0.506 of pass-through, 18 0.506, 15 0.499, 12 0.504 (later steps,
// outputs whole longer; BENCHMARKS.md, "h26anth2").
const (
	maskPayTurns = 15
	maskCutScan  = 256
)
