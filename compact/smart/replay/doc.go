// Package replay is the Smart Context replay benchmark: it replays a
// deterministic corpus of scripted agent sessions (each turn the full
// request an agent sends, in one of the three wire formats) three ways:
// exact (the request as sent), current (the conversation pruner of
// package prune) and optimized (package smart), and computes the seed's
// result block from the run: token reductions, success rates by a
// deterministic proxy, integrity of the control plane and tool calls,
// critical-signal recall, unresolved references, JSON validity, rewrite
// overhead and the coverage of the hard cases. `ctxd replay-report`
// prints it; docs/smart-context.md defines every metric.
package replay
