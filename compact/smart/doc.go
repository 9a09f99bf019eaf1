// Package smart is the Smart Context optimizer: it rewrites whole model
// requests (the three formats of package request) inside a safety
// envelope, so that payload segments (tool outputs, injected notices) may
// be condensed, replaced by hash-backed references, folded or
// deduplicated while protocol and continuation data stay byte-exact.
//
// [Optimizer.Optimize] classifies every segment (protocol exact,
// continuation exact, critical exact, rehydratable exact, lossless
// transformable, condensable, droppable duplicate), chooses a transform
// per payload segment under a budget policy chosen from the context
// pressure, stores the texts that references stand for in an artifact
// store (package artifacts), emits the rewrite into the original bytes
// and validates it against the original before returning it: JSON and
// item structure, the control plane byte for byte, tool-call pairing,
// mandatory references resolvable, critical-signal recall, nonempty
// payloads, no duplicated appendices, allocations, and savings. A failing
// segment is rolled back alone; a failure that touches protocol,
// continuation or structure returns the original bytes. Exact mode is a
// byte-identical pass-through; shadow mode and canary-out compute
// without writing anything and return the original.
//
// One structured log record per call carries the seed's telemetry field
// names ([Telemetry]); it never holds request text. The design, every
// field and the replay benchmark are in docs/smart-context.md.
package smart
