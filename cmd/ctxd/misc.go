package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/tokens"
)

func init() {
	register(&command{name: "version", args: "", summary: "Print ctxd's version.", run: runVersion})
	register(&command{
		name:    "config",
		args:    "[--root DIR] [--json]",
		summary: "Print the effective configuration and where each value came from (default, user file, .ctxd.toml).",
		run:     runConfig,
	})
	register(&command{
		name:    "models",
		args:    "[--json] [--model NAME [--context-window N] [--root DIR]]",
		summary: "List the models ctxd knows (--model names): context window, output limit and how tokens are counted; with --model, the window compaction uses for that name and its source (explicit, config, registry or none).",
		run:     runModels,
	})
}

func runModels(_ context.Context, io *IO, args []string) error {
	c := commands["models"]
	fs := newFlagSet(c, io.Err)
	asJSON := fs.Bool("json", false, "print JSON")
	name := fs.String("model", "", "show the window compaction uses for this model name, and where it comes from")
	window := fs.Int("context-window", 0, "with --model: the window given on the command line")
	root := fs.String("root", "", "with --model: the workspace whose configuration (context_window) applies")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("models takes no arguments")
	}
	if *window < 0 {
		return usagef("--context-window must not be negative")
	}
	if *name != "" {
		return modelWindow(io, *name, *window, *root, *asJSON)
	}
	specs := tokens.Models()
	if *asJSON {
		return printJSON(io.Out, specs)
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tWINDOW\tMAX OUTPUT\tCOUNTED WITH\tALIASES")
	for _, m := range specs {
		counted := m.Encoding + " (exact)"
		if !m.Exact {
			counted = m.Encoding + " (estimate)"
		}
		aliases := strings.Join(m.Aliases, ", ")
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", m.Name, m.Provider, m.ContextWindow, m.MaxOutput, counted, aliases)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "\nmodel registry %s; a dated snapshot of a listed name (gpt-4o-2024-08-06) reads as that model; any other name has no known window, so compaction runs no window-pressure step for it (--context-window or context_window in the configuration gives one; ctxd models --model NAME shows which applies).\n", tokens.RegistryVersion)
	return nil
}

// modelWindow prints the window compaction uses for a model name and its
// source: --context-window (explicit), the configuration's
// context_window (config), the registry, or none (no window-pressure
// step runs; request.NoWindow).
func modelWindow(io *IO, name string, flagWindow int, root string, asJSON bool) error {
	source, explicit := "explicit", flagWindow
	if explicit == 0 {
		cfg, err := workspaceConfig(root)
		if err != nil {
			return err
		}
		if cfg.ContextWindow > 0 {
			source, explicit = "config", cfg.ContextWindow
		}
	}
	m := tokens.Resolve(name, explicit)
	switch m.Source {
	case tokens.SourceRegistry:
		source = tokens.SourceRegistry
	case tokens.SourceFallback:
		source, m.ContextWindow = request.WindowNone, 0
	}
	if asJSON {
		return printJSON(io.Out, map[string]any{"name": m.Name, "context_window": m.ContextWindow, "source": source, "encoding": m.Encoding, "estimator_confidence": m.EstimatorConfidence})
	}
	// How its tokens are counted, in the words of the models table: an
	// unknown name's fallback encoding is not its tokenizer.
	counted := m.Encoding + " (exact)"
	switch {
	case m.Provider == "":
		counted = m.Encoding + " (an estimate: ctxd does not know this model's tokenizer)"
	case m.EstimatorConfidence != tokens.ConfidenceExact:
		counted = m.Encoding + " (estimate)"
	}
	if source == request.WindowNone {
		fmt.Fprintf(io.Out, "%s: no known context window (source none): compaction treats its requests as far from any threshold and runs no window-pressure step; give the window with --context-window or context_window in the configuration; counted with %s\n", m.Name, counted)
		return nil
	}
	fmt.Fprintf(io.Out, "%s: context window %d tokens (source %s), counted with %s\n", m.Name, m.ContextWindow, source, counted)
	return nil
}

func runVersion(_ context.Context, io *IO, args []string) error {
	if err := parseNone(newFlagSet(commands["version"], io.Err), args); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "ctxd %s (%s, %s/%s, model registry %s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, tokens.RegistryVersion)
	return nil
}

func runConfig(_ context.Context, io *IO, args []string) error {
	c := commands["config"]
	fs := newFlagSet(c, io.Err)
	root := fs.String("root", "", "workspace root (default: the current repository)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	dir, err := engine.ResolveRoot(*root)
	if err != nil {
		return err
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return err
	}
	entries := effectiveEntries(cfg)
	if *asJSON {
		return printJSON(io.Out, map[string]any{"root": dir, "user_file": config.UserFile(), "entries": entries})
	}
	uf := config.UserFile()
	if _, err := os.Stat(uf); err != nil {
		uf += " (not present)"
	}
	ws := filepath.Join(dir, config.WorkspaceFile)
	if _, err := os.Stat(ws); err != nil {
		ws += " (not present)"
	}
	fmt.Fprintf(io.Out, "# workspace %s\n# workspace file %s\n# user file %s\n", dir, ws, uf)
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		v, _ := json.Marshal(e.Value)
		fmt.Fprintf(tw, "%s\t%s\t# %s\n", e.Key, v, e.Source)
	}
	return tw.Flush()
}

// effectiveEntries is cfg's entries with the values the commands use: an
// unset budget.total is relative to the model's context window
// (ctxd.DefaultBudgetFor), an unset log.level the command's own default
// (configuredLog); the entry's source says so.
func effectiveEntries(cfg *config.Config) []config.Entry {
	_, m := tokens.ForModel(cfg.Model, cfg.ContextWindow)
	es := cfg.Entries()
	for i, e := range es {
		if v, ok := e.Value.([]string); ok && v == nil {
			es[i].Value = []string{}
		}
		if e.Source != config.SourceDefault {
			continue
		}
		switch e.Key {
		case "context_window":
			es[i].Value = m.ContextWindow
			es[i].Source = fmt.Sprintf("default: %s's window in the model registry", m.Name)
		case "log.level":
			es[i].Value = "warn"
			es[i].Source = "default: warn for one-shot commands, info for serve; --log-level wins"
		case "budget.total":
			es[i].Value = cfg.BudgetTotal(m.ContextWindow)
			es[i].Source = fmt.Sprintf("default: an eighth of %s's %d-token window, %d..%d", m.Name, m.ContextWindow, ctxd.DefaultBudgetTotal, ctxd.MaxDefaultBudgetTotal)
		}
	}
	return es
}
