// Package request reads model requests in three wire formats (OpenAI Chat
// Completions, Anthropic Messages, OpenAI Responses) into one model of
// items and segments, and writes them back in the same format.
//
// The model keeps every item's byte span in the original body. A [Plan]
// of changes (drop an item, drop a content block, replace a segment's
// text, insert an item) is emitted by copying the original bytes around
// the changed spans, so everything not rewritten passes through byte for
// byte: whitespace, key order, unknown fields, number formats and escapes.
//
// [Request.Pair] builds the tool-call graph by exact id; [Request.Check]
// verifies that a request has no call without its result and no result
// without its call. [Estimator] counts items with a model's encoding and
// image rule. Segments carry a [Class] (the Smart Context classes) and a
// SHA-256 content hash. The design is in docs/compaction.md.
package request
