package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// dtsMethods returns n documented method declarations of a TypeScript
// declaration file (commander.js's typings/index.d.ts).
func dtsMethods(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\n  /**\n   * Define %s%d, an option of the command, with its flags and a description.\n   * The option value is parsed after the command line is read; a required option\n   * shows an error when it is missing.\n   *\n   * @returns `this` command for chaining\n   */\n  %s%d(flags: string, description?: string, defaultValue?: string | boolean | string[]): this;\n", prefix, i, prefix, i)
	}
	return b.String()
}

// TestDeclarationCopyBudget: a JavaScript repository's declaration file
// (typings/index.d.ts) does not take the budget its implementation needs:
// "how do I make an option required and show an error when it is missing"
// on commander.js gave typings/index.d.ts 5,105 of 9,534 tokens at
// signatures. It takes at most a quarter of the context, the
// implementation's lines are visible and the context is within budget.
func TestDeclarationCopyBudget(t *testing.T) {
	command := "const { Option } = require('./option.js');\n\nclass Command {\n" + jsMethods("parse", 90) + `
  /**
   * Define a required option, which must have a value after parsing.
   */
  requiredOption(flags, description, parseArg, defaultValue) {
    return this._optionEx({ mandatory: true }, flags, description, parseArg, defaultValue);
  }

  /**
   * Display an error message if a mandatory option does not have a value.
   */
  _checkForMissingMandatoryOptions() {
    this._getCommandAndAncestors().forEach((cmd) => {
      cmd.options.forEach((anOption) => {
        if (anOption.mandatory && cmd.getOptionValue(anOption.attributeName()) === undefined) {
          cmd.missingMandatoryOptionValue(anOption); // mandatoryMarker
        }
      });
    });
  }

  /**
   * Missing mandatory option value.
   */
  missingMandatoryOptionValue(option) {
    const message = ` + "`error: required option '${option.flags}' not specified`" + `;
    this.error(message, { code: 'commander.missingMandatoryOptionValue' }); // errorMarker
  }
` + jsMethods("argument", 90) + "}\n\nexports.Command = Command;\n"
	files := map[string]string{
		"package.json":       `{"name": "commander", "main": "index.js", "types": "typings/index.d.ts"}` + "\n",
		"index.js":           "const { Command } = require('./lib/command.js');\nexports.Command = Command;\n",
		"lib/command.js":     command,
		"lib/option.js":      "class Option {\n  constructor(flags, description) {\n    this.flags = flags;\n    this.description = description || '';\n    this.mandatory = false; // optionMarker\n  }\n\n  makeOptionMandatory(mandatory = true) {\n    this.mandatory = !!mandatory;\n    return this;\n  }\n}\n\nexports.Option = Option;\n",
		"typings/index.d.ts": "export class Option {\n  flags: string;\n  mandatory: boolean;\n  /** Whether the option is mandatory and must have a value after parsing. */\n  makeOptionMandatory(mandatory?: boolean): this;\n}\n\nexport class Command {\n" + dtsMethods("option", 80) + "\n  /**\n   * Define a required option, which must have a value after parsing. This usually means\n   * the option must be specified on the command line, or an error is shown when it is missing.\n   */\n  requiredOption(flags: string, description?: string): this;\n" + dtsMethods("argument", 80) + "}\n",
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	env, got, order := promptTarget(t, e, PromptRequest{UserRequest: "how do I make an option required and show an error when it is missing"}, "lib/command.js")
	// The copy takes at most a quarter of the context (it took 4,137 of
	// 4,700 tokens here, the implementation 262).
	if d, _ := targetChunk(t, &env.Context, "typings/index.d.ts"); d != nil && 4*d.Tokens > env.Context.TokensUsed {
		t.Errorf("typings/index.d.ts takes %d of %d tokens at view %q; included %v", d.Tokens, env.Context.TokensUsed, d.Truncation, order)
	}
	lines := strings.Split(command, "\n")
	for _, m := range []string{"mandatoryMarker", "errorMarker", "return this._optionEx({ mandatory: true }"} {
		l := 0
		for i, s := range lines {
			if strings.Contains(s, m) {
				l = i + 1
			}
		}
		if !strings.Contains(got.Content, strings.TrimSpace(lines[l-1])) || ctxd.InRanges(got.Elided, l) {
			t.Errorf("lib/command.js at view %q (%d tokens) hides line %d (%q, task %s); included %v", got.Truncation, got.Tokens, l, m, env.TaskType, order)
		}
	}
}
