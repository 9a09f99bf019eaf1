// Package prune compacts conversation histories (the Token Diet pruner
// with budgeted retrieval) for the three request formats of package
// request.
//
// [Compress] keeps system messages, the first user message, the latest
// user turn and the last 2*WindowSize messages whole; condenses older tool
// outputs to a preview and a marker that records the SHA-256 of what it
// hid; and, when the request is still over its token budget, evicts whole
// tool-call units by score and puts one summary (files read and modified,
// commands run, errors seen, decisions; built without a model) where they
// stood. [ForRetry] adds the lesson-learned note for an agent's retry. A
// [Report] gives tokens before and after and each item's decision with
// its reason. The design and its sources are in docs/compaction.md.
package prune
