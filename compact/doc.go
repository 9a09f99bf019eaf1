// Package compact is the home of conversation compaction: model requests
// (OpenAI Chat, Anthropic Messages, OpenAI Responses) made smaller without
// breaking tool-call pairs or control fields. Its subpackages:
//
//   - request: the wire-format model (parse, items, segments, pairing,
//     estimates) shared by both compactors;
//   - prune: the budgeted pruner behind ctxd compress and ctx/compressMessages;
//   - smart: Smart Context behind ctxd optimize and ctx/optimizeRequest;
//   - smart/replay: the strict replay benchmark.
//
// compress/ is the context fitter for gathered chunks and nothing else.
package compact
