// Package config loads ctxd's configuration: built-in defaults, a
// user-level file, the workspace's .ctxd.toml, then overrides from the
// editor (initialize params) and the command line, in that order. Every
// effective value remembers where it came from, so `ctxd config` can say.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	toml "github.com/pelletier/go-toml/v2"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/editdist"
	"github.com/ctxd/ctxd/safefs"
)

// WorkspaceFile is the name of the workspace configuration file at the root.
const WorkspaceFile = ".ctxd.toml"

// Sources of a value, in increasing precedence.
const (
	SourceDefault    = "default"
	SourceUser       = "user"       // followed by ": <path>"
	SourceWorkspace  = "workspace"  // followed by ": <path>"
	SourceInitialize = "initialize" // the editor's initialize params
	SourceFlag       = "flag"       // a command-line flag or request param
)

// Config is the effective configuration.
type Config struct {
	// Model is the default model name; ContextWindow overrides the
	// registry's window when > 0.
	Model         string `toml:"model" json:"model"`
	ContextWindow int    `toml:"context_window" json:"context_window"`
	// Format is the default prompt format (markdown or xml).
	Format ctxd.Format `toml:"format" json:"format"`
	Budget Budget      `toml:"budget" json:"budget"`
	Gather Gather      `toml:"gather" json:"gather"`
	// Priority holds custom score boosts by doublestar path pattern, e.g.
	// "domain/models/**" = 200 (the design's custom prioritizer).
	Priority map[string]int `toml:"priority" json:"priority"`
	Log      Log            `toml:"log" json:"log"`
	// Secrets configures secret redaction. Secrets inside gathered files
	// are always redacted; conversation content (compress, optimize) only
	// when RedactConversation is set.
	Secrets Secrets `toml:"secrets" json:"secrets"`

	// sources maps a dotted key ("budget.total") to where its value came
	// from. Keys absent here are defaults.
	sources map[string]string
}

// Budget configures the token budget.
type Budget struct {
	Total  int         `toml:"total" json:"total"`
	Shares ctxd.Shares `toml:"shares" json:"shares"`
}

// Gather configures gathering.
type Gather struct {
	Include        []string `toml:"include" json:"include"`
	Exclude        []string `toml:"exclude" json:"exclude"`
	MaxFileBytes   int64    `toml:"max_file_bytes" json:"max_file_bytes"`
	MaxFiles       int      `toml:"max_files" json:"max_files"`
	StructureDepth int      `toml:"structure_depth" json:"structure_depth"`
	Commits        int      `toml:"commits" json:"commits"`
	// Depth is how many related files (targets, tests, dependents, lexical
	// matches) each task type gathers.
	Depth map[string]int `toml:"depth" json:"depth"`
	// BackgroundAnalysis lets the daemon parse, render and count every
	// source file in the background once its file index is built, so
	// requests it has not seen find their files analysed (it pauses while
	// requests run; the CLI never does it). Off saves the CPU time on
	// battery.
	BackgroundAnalysis bool `toml:"background_analysis" json:"background_analysis"`
}

// Secrets configures secret redaction.
type Secrets struct {
	// RedactConversation redacts secrets inside the messages of
	// compress and optimize requests (the --redact-secrets flag).
	RedactConversation bool `toml:"redact_conversation" json:"redact_conversation"`
}

// Log configures logging.
type Log struct {
	Level string `toml:"level" json:"level"`
	File  string `toml:"file" json:"file"`
}

// Default returns the built-in configuration.
func Default() *Config {
	return &Config{
		Model:  "gpt-4o",
		Format: ctxd.FormatMarkdown,
		Budget: Budget{Total: ctxd.DefaultBudgetTotal, Shares: ctxd.DefaultShares},
		Gather: Gather{
			MaxFileBytes:   1 << 20,
			MaxFiles:       50,
			StructureDepth: 3,
			Commits:        5,
			// BackgroundAnalysis: see [Gather].
			BackgroundAnalysis: true,
			Depth: map[string]int{
				string(ctxd.TaskImplement): 10,
				string(ctxd.TaskDebug):     10,
				string(ctxd.TaskRefactor):  15,
				string(ctxd.TaskTest):      10,
				string(ctxd.TaskAnalyze):   10,
			},
		},
		Priority: map[string]int{},
		Log:      Log{Level: "info"},
		sources:  map[string]string{},
	}
}

// BudgetTotal is the total token budget of a prompt for a model whose
// context window is window: budget.total when something set it, else
// relative to the window (ctxd.DefaultBudgetFor).
func (c *Config) BudgetTotal(window int) int {
	if c.Source("budget.total") == SourceDefault {
		return ctxd.DefaultBudgetFor(window)
	}
	return c.Budget.Total
}

// Source returns where the value of a dotted key came from ("default" when
// nothing set it).
func (c *Config) Source(key string) string {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return SourceDefault
}

// sourceUnder is Source for key or, when key itself was not set, the
// sources of the keys under it that were (budget.shares' from
// budget.shares.context): a value made of parts names where the parts
// came from.
func (c *Config) sourceUnder(key string) string {
	if s, ok := c.sources[key]; ok {
		return s
	}
	var srcs []string
	for k, s := range c.sources {
		if strings.HasPrefix(k, key+".") && !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	if len(srcs) == 0 {
		return SourceDefault
	}
	slices.Sort(srcs)
	return strings.Join(srcs, ", ")
}

// Set records that key was set by src. Callers that change a field after
// loading (flags, initialize params) call it so provenance stays true.
func (c *Config) Set(key, src string) {
	if c.sources == nil {
		c.sources = map[string]string{}
	}
	c.sources[key] = src
}

// Clone returns a deep copy of c.
func (c *Config) Clone() *Config {
	d := *c
	d.Gather.Include = append([]string(nil), c.Gather.Include...)
	d.Gather.Exclude = append([]string(nil), c.Gather.Exclude...)
	d.Gather.Depth = cloneMap(c.Gather.Depth)
	d.Priority = cloneMap(c.Priority)
	d.sources = cloneMap(c.sources)
	return &d
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// UserFile returns the path of the user-level configuration file:
// $CTXD_CONFIG if set, else $XDG_CONFIG_HOME/ctxd/config.toml, else
// ~/.config/ctxd/config.toml. It returns "" when no home is known.
func UserFile() string {
	if p := os.Getenv("CTXD_CONFIG"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctxd", "config.toml")
}

// Load returns the configuration for a workspace root: defaults, then the
// user file (when it exists), then root/.ctxd.toml (when it exists). A
// malformed file is an error naming the file, the line and the key.
func Load(root string) (*Config, error) {
	c := Default()
	if p := UserFile(); p != "" {
		if err := c.mergeFile(p, SourceUser); err != nil {
			return nil, err
		}
	}
	if root != "" {
		if err := c.mergeFile(filepath.Join(root, WorkspaceFile), SourceWorkspace); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// fileConfig mirrors Config with pointers, so a merge can tell "set to the
// zero value" from "not set".
type fileConfig struct {
	Model         *string `toml:"model"`
	ContextWindow *int    `toml:"context_window"`
	Format        *string `toml:"format"`
	Budget        *struct {
		Total  *int `toml:"total"`
		Shares *struct {
			System   *float64 `toml:"system"`
			Context  *float64 `toml:"context"`
			Request  *float64 `toml:"user_request"`
			Response *float64 `toml:"response"`
		} `toml:"shares"`
	} `toml:"budget"`
	Gather *struct {
		Include        *[]string       `toml:"include"`
		Exclude        *[]string       `toml:"exclude"`
		MaxFileBytes   *int64          `toml:"max_file_bytes"`
		MaxFiles       *int            `toml:"max_files"`
		StructureDepth *int            `toml:"structure_depth"`
		Commits        *int            `toml:"commits"`
		Depth          map[string]*int `toml:"depth"`
		Background     *bool           `toml:"background_analysis"`
	} `toml:"gather"`
	Priority map[string]int `toml:"priority"`
	Log      *struct {
		Level *string `toml:"level"`
		File  *string `toml:"file"`
	} `toml:"log"`
	Secrets *struct {
		RedactConversation *bool `toml:"redact_conversation"`
	} `toml:"secrets"`
}

// FileError is a problem in a configuration file, with its position.
type FileError struct {
	Path string
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key; "" when unknown
	Msg  string
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %q", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes a FileError match ctxd.ErrInvalidParams.
func (e *FileError) Unwrap() error { return ctxd.ErrInvalidParams }

func (c *Config) mergeFile(path, kind string) error {
	data, err := safefs.ReadFile(context.Background(), path, maxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	fc, err := parseFile(path, data)
	if err != nil {
		return err
	}
	c.merge(fc, kind+": "+path)
	return nil
}

// Parse parses one configuration file's bytes (path is for messages).
func parseFile(path string, data []byte) (*fileConfig, error) {
	var fc fileConfig
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return nil, fileError(path, err)
	}
	return &fc, nil
}

func fileError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		de := strict.Errors[0]
		line, _ := de.Position()
		return &FileError{Path: path, Line: line, Key: strings.Join(de.Key(), "."), Msg: unknownKeyMessage(de.Key())}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &FileError{Path: path, Line: line, Key: strings.Join(de.Key(), "."), Msg: cleanTOMLMessage(de.Error())}
	}
	return &FileError{Path: path, Msg: cleanTOMLMessage(err.Error())}
}

// unknownKeyMessage says a key is unknown and lists the keys valid where
// it stands, the closest first when one is a likely typo ("totl": "did you
// mean total?").
func unknownKeyMessage(key []string) string {
	t := reflect.TypeOf(fileConfig{})
	for _, k := range key[:max(len(key)-1, 0)] {
		f, ok := fieldByTag(t, k)
		if !ok {
			return "unknown key"
		}
		t = f
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "unknown key"
	}
	var names []string
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); n != "" {
			names = append(names, n)
		}
	}
	msg := "unknown key; valid here: " + strings.Join(names, ", ")
	if len(key) > 0 {
		if best := editdist.Nearest(key[len(key)-1], names, editdist.Edits(2)); best != "" {
			msg = "unknown key (did you mean " + best + "?); valid here: " + strings.Join(names, ", ")
		}
	}
	return msg
}

// fieldByTag returns the type of t's field tagged toml:"name" (through
// pointers).
func fieldByTag(t reflect.Type, name string) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); n == name {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// cleanTOMLMessage drops the library prefix and Go struct types from a
// decode message, which mean nothing to a user editing a file.
func cleanTOMLMessage(s string) string {
	s = strings.TrimPrefix(s, "toml: ")
	if i := strings.Index(s, " into struct field"); i >= 0 {
		if j := strings.LastIndex(s, " of type "); j > i {
			return s[:i] + " (want " + s[j+len(" of type "):] + ")"
		}
		return s[:i]
	}
	return s
}

func (c *Config) merge(fc *fileConfig, src string) {
	if fc.Secrets != nil && fc.Secrets.RedactConversation != nil {
		c.Secrets.RedactConversation = *fc.Secrets.RedactConversation
		c.Set("secrets.redact_conversation", src)
	}
	setFrom(c, "model", src, &c.Model, fc.Model)
	setFrom(c, "context_window", src, &c.ContextWindow, fc.ContextWindow)
	if fc.Format != nil {
		c.Format = ctxd.Format(*fc.Format)
		c.Set("format", src)
	}
	if b := fc.Budget; b != nil {
		setFrom(c, "budget.total", src, &c.Budget.Total, b.Total)
		if s := b.Shares; s != nil {
			setFrom(c, "budget.shares.system", src, &c.Budget.Shares.System, s.System)
			setFrom(c, "budget.shares.context", src, &c.Budget.Shares.Context, s.Context)
			setFrom(c, "budget.shares.user_request", src, &c.Budget.Shares.Request, s.Request)
			setFrom(c, "budget.shares.response", src, &c.Budget.Shares.Response, s.Response)
		}
	}
	if g := fc.Gather; g != nil {
		setFrom(c, "gather.include", src, &c.Gather.Include, g.Include)
		setFrom(c, "gather.exclude", src, &c.Gather.Exclude, g.Exclude)
		setFrom(c, "gather.max_file_bytes", src, &c.Gather.MaxFileBytes, g.MaxFileBytes)
		setFrom(c, "gather.max_files", src, &c.Gather.MaxFiles, g.MaxFiles)
		setFrom(c, "gather.structure_depth", src, &c.Gather.StructureDepth, g.StructureDepth)
		setFrom(c, "gather.commits", src, &c.Gather.Commits, g.Commits)
		setFrom(c, "gather.background_analysis", src, &c.Gather.BackgroundAnalysis, g.Background)
		for task, v := range g.Depth {
			if v != nil {
				c.Gather.Depth[task] = *v
				c.Set("gather.depth."+task, src)
			}
		}
	}
	for pat, v := range fc.Priority {
		c.Priority[pat] = v
		c.Set("priority."+pat, src)
	}
	if l := fc.Log; l != nil {
		setFrom(c, "log.level", src, &c.Log.Level, l.Level)
		setFrom(c, "log.file", src, &c.Log.File, l.File)
	}
}

// Validate checks values that parse but make no sense, naming the key and
// where it was set.
func (c *Config) Validate() error {
	bad := func(key, msg string) error {
		return fmt.Errorf("config %s (from %s): %s: %w", key, c.sourceUnder(key), msg, ctxd.ErrInvalidParams)
	}
	if _, err := ctxd.ParseFormat(string(c.Format)); err != nil {
		return bad("format", "want markdown or xml")
	}
	if c.Budget.Total <= 0 {
		return bad("budget.total", "must be positive")
	}
	if c.ContextWindow < 0 {
		return bad("context_window", "must not be negative")
	}
	if err := c.Budget.Shares.Validate(); err != nil {
		return bad("budget.shares", ctxd.Message(err))
	}
	if c.Gather.MaxFileBytes <= 0 {
		return bad("gather.max_file_bytes", "must be positive")
	}
	if c.Gather.MaxFiles <= 0 {
		return bad("gather.max_files", "must be positive")
	}
	if c.Gather.StructureDepth < 0 || c.Gather.Commits < 0 {
		return bad("gather", "structure_depth and commits must not be negative")
	}
	for task, n := range c.Gather.Depth {
		if _, err := ctxd.ParseTaskType(task); err != nil || task == "" || task == "auto" {
			return bad("gather.depth."+task, "unknown task type")
		}
		if n < 0 {
			return bad("gather.depth."+task, "must not be negative")
		}
	}
	for _, list := range [][]string{c.Gather.Include, c.Gather.Exclude} {
		for _, p := range list {
			if !doublestar.ValidatePattern(p) {
				return bad("gather", fmt.Sprintf("invalid glob %q", p))
			}
		}
	}
	for p := range c.Priority {
		if !doublestar.ValidatePattern(p) {
			return bad("priority", fmt.Sprintf("invalid glob %q", p))
		}
	}
	switch strings.ToLower(c.Log.Level) {
	case "debug", "info", "warn", "error":
	default:
		return bad("log.level", "want debug, info, warn or error")
	}
	return nil
}

// Entry is one effective value and its source, for `ctxd config`.
type Entry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Entries lists every effective value with its source, sorted by key.
func (c *Config) Entries() []Entry {
	es := []Entry{
		{Key: "model", Value: c.Model},
		{Key: "context_window", Value: c.ContextWindow},
		{Key: "format", Value: string(c.Format)},
		{Key: "budget.total", Value: c.Budget.Total},
		{Key: "budget.shares.system", Value: c.Budget.Shares.System},
		{Key: "budget.shares.context", Value: c.Budget.Shares.Context},
		{Key: "budget.shares.user_request", Value: c.Budget.Shares.Request},
		{Key: "budget.shares.response", Value: c.Budget.Shares.Response},
		{Key: "gather.include", Value: list(c.Gather.Include)},
		{Key: "gather.exclude", Value: list(c.Gather.Exclude)},
		{Key: "gather.max_file_bytes", Value: c.Gather.MaxFileBytes},
		{Key: "gather.max_files", Value: c.Gather.MaxFiles},
		{Key: "gather.structure_depth", Value: c.Gather.StructureDepth},
		{Key: "gather.commits", Value: c.Gather.Commits},
		{Key: "gather.background_analysis", Value: c.Gather.BackgroundAnalysis},
		{Key: "log.level", Value: c.Log.Level},
		{Key: "log.file", Value: c.Log.File},
	}
	for task, n := range c.Gather.Depth {
		es = append(es, Entry{Key: "gather.depth." + task, Value: n})
	}
	for p, n := range c.Priority {
		es = append(es, Entry{Key: "priority." + p, Value: n})
	}
	for i := range es {
		es[i].Source = c.Source(es[i].Key)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Key < es[j].Key })
	return es
}

// list gives an unset list setting as [] rather than null: `ctxd config
// --json` and the daemon's initialize result show an empty list.
func list(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// Overrides are values set above the files: by the editor's initialize
// params or by command-line flags. Nil fields leave the value alone.
type Overrides struct {
	Model         *string      `json:"model,omitempty"`
	ContextWindow *int         `json:"context_window,omitempty"`
	Format        *ctxd.Format `json:"format,omitempty"`
	BudgetTotal   *int         `json:"budget_total,omitempty"`
	Shares        *ctxd.Shares `json:"shares,omitempty"`
	Exclude       []string     `json:"exclude,omitempty"`
	MaxFiles      *int         `json:"max_files,omitempty"`
}

// Apply sets the overrides' values, recording src as their source, and
// validates the result. Exclude patterns add to the configured ones.
func (c *Config) Apply(o Overrides, src string) error {
	setFrom(c, "model", src, &c.Model, o.Model)
	setFrom(c, "context_window", src, &c.ContextWindow, o.ContextWindow)
	setFrom(c, "format", src, &c.Format, o.Format)
	setFrom(c, "budget.total", src, &c.Budget.Total, o.BudgetTotal)
	if o.Shares != nil {
		c.Budget.Shares = *o.Shares
		for _, k := range []string{"system", "context", "user_request", "response"} {
			c.Set("budget.shares."+k, src)
		}
	}
	if len(o.Exclude) > 0 {
		c.Gather.Exclude = append(append([]string(nil), c.Gather.Exclude...), o.Exclude...)
		c.Set("gather.exclude", src)
	}
	setFrom(c, "gather.max_files", src, &c.Gather.MaxFiles, o.MaxFiles)
	return c.Validate()
}

// maxConfigBytes caps a config file: a cloned repository's .ctxd.toml can be
// a link to /dev/zero or a FIFO, which [safefs] refuses unread.
const maxConfigBytes = 1 << 20

// setFrom sets *dst to *v, and records src as where key's value came
// from, when v is set.
func setFrom[T any](c *Config, key, src string, dst, v *T) {
	if v != nil {
		*dst = *v
		c.Set(key, src)
	}
}
