package main

import (
	"context"
	"fmt"

	"github.com/ctxd/ctxd/engine"
)

func init() {
	register(&command{
		name: "symbol",
		args: "[--root DIR] [--max-references N] [--docs] [--json] NAME",
		summary: `Find a symbol's definitions (from the symbol index: kind, lines, signature) and the
code lines that use it, as MCP's find_symbol does. NAME is a bare name (Open, open()),
or qualified by its type or package (Store.Open, Store#open, artifacts.Open), at most
three parts (store.Store.Put, walk::Walker::scan; a package path may lead: net/http.Get;
a longer chain, or a part that is no identifier, is an error), or a computed member as the
outline lists it (app[method]). Definitions include the functions an object literal holds
(a plugin's hooks: configureServer() { ... } inside return { ... }). A name inside a string,
docstring or comment is no use of it. Lines of documentation files are left out unless --docs.`,
		run: runSymbol,
	})
}

func runSymbol(ctx context.Context, io *IO, args []string) error {
	c := commands["symbol"]
	fs := newFlagSet(c, io.Err)
	rootArg := fs.String("root", "", "workspace root (default: the git top-level of the current directory)")
	maxRefs := fs.Int("max-references", 50, "most references to print")
	docs := fs.Bool("docs", false, "also list the lines of documentation files (Markdown, reST, text)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	logLevel := fs.String("log-level", "warn", "log level on stderr: debug, info, warn, error")
	name, err := parseOne(fs, args, "NAME")
	if err != nil {
		return err
	}
	if *maxRefs <= 0 {
		return usagef("--max-references must be positive, got %d", *maxRefs)
	}
	root, err := engine.ResolveRoot(*rootArg)
	if err != nil {
		return err
	}
	eng, done, err := openEngine(io.Err, fs, root, logLevel, nil, engine.Options{})
	if err != nil {
		return err
	}
	defer done()
	res, err := eng.FindSymbol(ctx, engine.SymbolRequest{Name: name, MaxReferences: *maxRefs, IncludeDocs: *docs})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(io.Out, res)
	}
	for _, d := range res.Definitions {
		fmt.Fprintln(io.Out, d)
	}
	for _, r := range res.References {
		fmt.Fprintln(io.Out, r)
	}
	if res.Truncated {
		fmt.Fprintf(io.Err, "ctxd: more references left out; raise --max-references\n")
	}
	if note := res.ReceiverNote(); note != "" {
		fmt.Fprintf(io.Err, "ctxd: %s\n", note)
	}
	if len(res.Definitions) == 0 && len(res.References) == 0 {
		// FilesSearched counts the files holding the name's text ("in 0
		// files" read as if nothing had been searched).
		where := "no code file contains the name"
		if res.FilesSearched > 0 {
			where = fmt.Sprintf("%d files contain the text, but not as a definition or a code use", res.FilesSearched)
		}
		fmt.Fprintf(io.Err, "ctxd: %s: nothing found: %s (check the spelling, try the bare name, or --docs for documentation)\n", name, where)
	}
	return nil
}
