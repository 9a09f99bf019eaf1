package main

import (
	"flag"
	"fmt"

	"github.com/ctxd/ctxd"
)

// redactFlag registers --redact-secrets, the CLI side of the config key
// secrets.redact_conversation, on a compress or optimize flag set. The
// redaction itself is the request flow's (engine.Requests), as for every
// front end.
func redactFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("redact-secrets", false, "replace secrets inside the conversation with [REDACTED rule] markers before rewriting (config: secrets.redact_conversation)")
}

// printRedactions tells stderr what was redacted (rule and line, never
// the secret).
func printRedactions(std *IO, reds []ctxd.Redaction) {
	for _, r := range reds {
		fmt.Fprintf(std.Err, "redacted %s (line %d of a message)\n", r.Rule, r.Line)
	}
}
