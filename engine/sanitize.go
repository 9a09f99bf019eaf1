package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/par"
	"github.com/ctxd/ctxd/secrets"
)

// sanitizeChunks makes gathered chunks safe to return and to marshal:
// invalid UTF-8 in a source name or content is replaced by U+FFFD (noted in
// the chunk's facts and a warning), and every secret inside content is
// replaced by a marker. It returns the redactions and warnings. The CLI and
// the daemon both build envelopes here, so both decode the same way. A
// content sums holds is looked up by that sum (nil: every content hashed).
func sanitizeChunks(sc *secrets.Scanner, chunks []ctxd.Chunk, sums contentSums) ([]ctxd.Redaction, []string, error) {
	// Chunks are independent: scanned on every core, merged in order.
	type out struct {
		reds  []ctxd.Redaction
		warns []string
	}
	outs := make([]out, len(chunks))
	par.Each(context.Background(), len(chunks), func(i int) {
		c, o := &chunks[i], &outs[i]
		if !utf8.ValidString(c.Source) {
			c.Source = strings.ToValidUTF8(c.Source, "\uFFFD")
			c.Facts.InvalidUTF8 = true
			o.warns = append(o.warns, fmt.Sprintf("%s: the file name is not valid UTF-8; invalid bytes shown as U+FFFD", c.Source))
		}
		if !utf8.ValidString(c.Content) {
			c.Content = strings.ToValidUTF8(c.Content, "\uFFFD")
			c.Facts.InvalidUTF8 = true
			o.warns = append(o.warns, fmt.Sprintf("%s: not valid UTF-8; invalid bytes replaced by U+FFFD", c.Source))
		}
		for j, r := range c.Facts.Reasons {
			c.Facts.Reasons[j] = strings.ToValidUTF8(r, "\uFFFD")
		}
		if cs := sums.of(c); cs != nil {
			c.Content, o.reds = sc.RedactSum(c.Source, c.Content, cs.sum)
		} else {
			c.Content, o.reds = sc.Redact(c.Source, c.Content)
		}
		c.Facts.Redacted += len(o.reds)
	})
	var reds []ctxd.Redaction
	var warns []string
	for _, o := range outs {
		reds = append(reds, o.reds...)
		warns = append(warns, o.warns...)
	}
	return reds, warns, nil
}

// redactText redacts secrets in one text (a rendered prompt, a message);
// source names it in the redactions.
func redactText(source, text string) (string, []ctxd.Redaction, error) {
	sc, err := secrets.Default()
	if err != nil {
		return text, nil, err
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	out, reds := sc.Redact(source, text)
	return out, reds, nil
}

// redactSource is the one redaction of a file's text on its way to a
// structure tool (ctx/outline, `ctxd outline`, `ctxd truncate`, MCP
// outline and find_symbol): the engine redacts before it parses, so
// symbols, signatures, views and reference lines are all cut from the
// redacted text, and a result field added later cannot carry a secret.
// Line numbers are the file's own (secrets.Scanner.RedactSource).
func redactSource(source string, src []byte) ([]byte, []ctxd.Redaction) {
	sc, _ := secrets.Default() // never fails; an unloadable rule set withholds the text
	return sc.RedactSource(source, src)
}

// redactStored is redactSource with the workspace store's scanner, whose
// clean set is loaded from and saved to the state directory: find_symbol
// on a common name redacts every file that holds it, and without the set
// each new process (`ctxd symbol`) scanned them all again (half of a warm
// `ctxd symbol Write`'s CPU on a 10k-file tree).
func (e *Engine) redactStored(source string, src []byte) ([]byte, []ctxd.Redaction) {
	sc, err := e.store.Secrets()
	if err != nil {
		return redactSource(source, src) // an unloadable rule set withholds the text
	}
	return sc.RedactSource(source, src)
}

// mergeRedactions appends b to a, leaving out ones already listed.
func mergeRedactions(a, b []ctxd.Redaction) []ctxd.Redaction {
	seen := make(map[ctxd.Redaction]bool, len(a))
	for _, r := range a {
		seen[r] = true
	}
	for _, r := range b {
		if !seen[r] {
			seen[r] = true
			a = append(a, r)
		}
	}
	return a
}

// sanitizeStrings replaces invalid UTF-8 in warnings and skipped sources.
func sanitizeEnvelope(env *ctxd.Envelope) {
	for i, w := range env.Warnings {
		env.Warnings[i] = strings.ToValidUTF8(w, "\uFFFD")
	}
	for i := range env.Context.Skipped {
		s := &env.Context.Skipped[i]
		s.Source = strings.ToValidUTF8(s.Source, "\uFFFD")
		s.Reason = strings.ToValidUTF8(s.Reason, "\uFFFD")
	}
	env.UserRequest = strings.ToValidUTF8(env.UserRequest, "\uFFFD")
}
