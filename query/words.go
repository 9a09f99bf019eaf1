package query

import "strings"

// stopwords are request words that say nothing about which file is meant.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of in on at to for from by with
		without into onto over under about as is are was were be been being it its this that these
		those there here what which who whom whose when where why how i me my we our you your he she
		they them their do does did doing done have has had having can could should would will shall
		may might must not no yes so than too very just also only all any some each every both
		please pls thanks explain explains describe show tell help understand
		fix fixes fixed fixing add adds added adding make makes making made change
		changes changed changing update updates updated updating implement implementing write
		writing use uses used using need needs want wants get gets got let lets like new old
		code file files function functions method methods work works working broken issue issues
		problem problems bug bugs should seem seems seemed wrong right way thing things one two
		sure something anything everything`) {
		m[w] = true
	}
	return m
}()

// Words returns the words of s that say which file is meant: its
// identifier runs ([ScanIdents]), stopwords dropped, in order. Ranking
// hashes them into its terms.
func Words(s string) []string {
	return words(s, false)
}

// words returns the runs of s ScanIdents finds, or ScanWords when
// numbers is set, stopwords dropped: substrings of s.
func words(s string, numbers bool) []string {
	var out []string
	var lower [12]byte
	fn := func(id string) {
		if len(id) <= 12 && isStopword(&lower, id) {
			return
		}
		if out == nil {
			out = make([]string, 0, max(4, len(s)/8))
		}
		out = append(out, id)
	}
	if numbers {
		scanWords(s, fn)
	} else {
		scan(s, &identBytes, fn)
	}
	return out
}

// isStopword is stopwords[strings.ToLower(id)] for a word of at most 12
// bytes, lower-cased in buf when it is ASCII (no allocation).
func isStopword(buf *[12]byte, id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 0x80 {
			return stopwords[strings.ToLower(id)]
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return stopwords[string(buf[:len(id)])]
}
