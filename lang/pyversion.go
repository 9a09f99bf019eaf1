package lang

import (
	"strconv"
	"strings"
)

// Copies of one example per Python version: fastapi's docs_src holds each
// tutorial as tutorial001.py, tutorial001_py39.py, tutorial001_py310.py,
// tutorial001_an.py (with Annotated), tutorial001_an_py39.py, ... - the
// same code with the types spelled for each version. Every copy matched a
// request as well as the others (eight copies of one example took 13 of
// the 25 lexical places of "Fix parameter aliases", BENCHMARKS.md
// "hword"), so the ranking counts them once, as copies per language
// (workspace/tree, groupVersions).

// VersionCopy returns the version a Python file is a copy for and the
// file it is a copy of: a stem ending in _py3N or _py3NN (the Python
// version), _an (Annotated), or _an_py3N, returns that tail's tag ("py310",
// "an", "an-py39") and the path without it. Other paths return "" and
// themselves. As with [CopyLocale], nothing here says the path is a copy:
// the caller checks that another version of it exists.
func VersionCopy(p string) (tag, page string) {
	if !strings.HasSuffix(p, ".py") {
		return "", p
	}
	stem := p[:len(p)-len(".py")]
	if !strings.Contains(stem[strings.LastIndexByte(stem, '/')+1:], "_") {
		return "", p // most paths: no tail to look at
	}
	var ver string
	if i := strings.LastIndex(stem, "_py3"); i > 0 && stem[i-1] != '/' {
		if d := stem[i+len("_py3"):]; len(d) >= 1 && len(d) <= 2 && digits(d) {
			ver, stem = stem[i+1:], stem[:i]
		}
	}
	an := false
	if s, ok := strings.CutSuffix(stem, "_an"); ok && s != "" && !strings.HasSuffix(s, "/") {
		an, stem = true, s
	}
	switch {
	case an && ver != "":
		tag = "an-" + ver
	case an:
		tag = "an"
	case ver != "":
		tag = ver
	default:
		return "", p
	}
	return tag, stem + ".py"
}

// PreferredVersion returns the index in tags ([VersionCopy]'s, "" for the
// untagged original) of the copy a request is shown: the original, else
// the newest Python version without Annotated, else the newest with it.
func PreferredVersion(tags []string) int {
	best, bestKey := 0, -1
	for i, t := range tags {
		key := 0
		switch {
		case t == "":
			key = 1 << 20
		default:
			ver, an := strings.CutPrefix(t, "an")
			ver = strings.TrimPrefix(ver, "-")
			n := 0
			if v, ok := strings.CutPrefix(ver, "py3"); ok {
				n, _ = strconv.Atoi(v)
			}
			key = n + 1
			if !an {
				key += 1 << 10
			}
		}
		if key > bestKey {
			best, bestKey = i, key
		}
	}
	return best
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
