package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/secrets"
)

// redactFlag registers --redact-secrets, the CLI side of the config key
// secrets.redact_conversation, on a compress or optimize flag set.
func redactFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("redact-secrets", false, "replace secrets inside the conversation with [REDACTED rule] markers before rewriting (config: secrets.redact_conversation)")
}

// redactBody redacts secrets in a model request when the flag or the
// configuration of the current directory asks for it; the redactions
// (never the secrets) go to stderr.
func redactBody(std *IO, on bool, body []byte) ([]byte, error) {
	if !on {
		if wd, err := os.Getwd(); err == nil {
			if cfg, err := config.Load(wd); err == nil {
				on = cfg.Secrets.RedactConversation
			}
		}
	}
	if !on {
		return body, nil
	}
	sc, err := secrets.Default()
	if err != nil {
		return nil, err
	}
	out, reds, err := sc.RedactJSON("messages", body)
	if err != nil {
		return nil, err
	}
	for _, r := range reds {
		fmt.Fprintf(std.Err, "redacted %s (line %d of a message)\n", r.Rule, r.Line)
	}
	return out, nil
}
