package replay

// Where an error line comes from decides whether it counts as a critical
// signal (the "distinct" measure of [CheckSignals]; docs/smart-context.md,
// "Measuring what stays in view"):
//
//   - Error lines and failing tests count only from the output of a
//     command that ran something: tests, scripts, builds, installs, an
//     edit tool whose linter ran. A traceback's quoted source lines are
//     part of the traceback and count with it.
//   - The output of a file view or a search (cat, sed, nl, head, tail,
//     grep, rg, find, ls, ...; SWE-agent's open, goto, scroll, search and
//     find tools; an editor tool's view) is the file's text, not an
//     error: `raise ValueError(` quoted by `cat` or a grep hit on "error"
//     is not one.
//   - File paths and file:line locations count from every output.
//
// Messages (the task, the model's words) are not tool outputs: their
// signals all count. The rule is [signal.ViewOutput].
