// Package tokens counts tokens the way the models do and describes the
// models ctxd builds prompts for.
//
// Everything in ctxd counts through one small interface, [Counter]. [Get]
// returns the shared exact counter of an OpenAI encoding (cl100k_base,
// o200k_base), built once per process from vocabularies embedded in the
// binary: nothing is downloaded at run time. Counts of longer texts are
// cached by a 128-bit hash of their content, and texts of a kilobyte or
// more are counted as the sum of blocks of a few lines, cut where the
// encodings' split patterns must start a piece, each block's count cached
// the same way: a view of a file costs the lines it does not share with
// texts counted before (blocks.go).
//
// The model registry ([Models], [Lookup], [RegistryVersion]) gives each
// known model's provider, context window, maximum output and encoding.
// [Resolve] and [ForModel] choose the window in a fixed order (explicit
// request, then the registry, then a conservative fallback) and report
// where it came from. Models without a public tokenizer (Anthropic, Google,
// Meta, Mistral) are counted by a calibrated estimator: an exact encoding
// scaled by a per-family factor chosen to over-count, flagged with
// estimator confidence "low" and its measured calibration error.
//
// [TruncateMiddle] keeps the head and the tail of a text within a token
// budget. See docs/tokens.md for the choice of tokenizer library, the
// registry's sources and the calibration data.
package tokens
