package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestEvalRecall(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":         "module example.com/shop\n\ngo 1.26\n",
		"tax/tax.go":     "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tif country == \"DE\" {\n\t\treturn 19\n\t}\n\treturn 0\n}\n",
		"ship/parcel.go": "package ship\n\n// Cost returns the carrier price of a parcel by weight in grams.\nfunc Cost(grams int) int {\n\treturn 490\n}\n",
	})
	testutil.WriteFiles(t, dir, map[string]string{"tax/tax.go": "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tswitch country {\n\tcase \"DE\":\n\t\treturn 19\n\tcase \"FR\":\n\t\treturn 20\n\t}\n\treturn 0\n}\n"})
	testutil.Git(t, dir, "commit", "-q", "-am", "Add the French VAT rate to the country table")

	out, errOut, code := runCtxd(t, dir, "", nil, "eval", "recall", "--repo", dir, "--budgets", "4000,16000", "-v")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, s := range []string{"1 commits replayed", "all-found", "4000", "16000", "ctxd", "bm25", "100.0%"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errOut, "1/1") {
		t.Errorf("-v printed no progress:\n%s", errOut)
	}

	runFailures(t, dir, []cliFailure{
		{"no subcommand", []string{"eval"}, 2, "want the subcommand recall"},
		{"bad budgets", []string{"eval", "recall", "--budgets", "8k"}, 2, "--budgets"},
		{"not a repository", []string{"eval", "recall", "--repo", t.TempDir()}, 2, "not a git repository"},
	})
}

func TestEvalSWEBench(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"shop/tax.py":  "def rate(country):\n    if country == \"DE\":\n        return 19\n    return 0\n",
		"shop/ship.py": "def cost(grams):\n    return 490\n",
	})
	base := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	testutil.WriteFiles(t, dir, map[string]string{"shop/tax.py": "def rate(country):\n    if country == \"DE\":\n        return 19\n    if country == \"FR\":\n        return 20\n    return 0\n"})
	testutil.Git(t, dir, "commit", "-q", "-am", "Add the French VAT rate")
	patch := testutil.Git(t, dir, "diff", base, "HEAD")
	line, _ := json.Marshal(map[string]string{"repo": "shop/shop", "instance_id": "shop__shop-1", "base_commit": base, "patch": patch,
		"problem_statement": "The VAT rate for France is missing: rate(\"FR\") returns 0."})
	inst := filepath.Join(t.TempDir(), "instances.jsonl")
	if err := os.WriteFile(inst, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := runCtxd(t, dir, "", nil, "eval", "swebench", "--instances", inst, "--repo", "shop/shop="+dir, "--budgets", "4000,16000", "-v")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, s := range []string{"1 instances", "budget 4000", "budget 16000", "shop/shop", "total", "100.0%"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errOut, "1/1 shop__shop-1") {
		t.Errorf("-v printed no progress:\n%s", errOut)
	}
	out, errOut, code = runCtxd(t, dir, "", nil, "eval", "swebench", "--instances", inst, "--repos", filepath.Dir(dir), "--repo", "shop/shop="+dir, "--budgets", "16000", "--json")
	var rep struct {
		Instances int
		Results   []struct {
			Files []string
			Lines int
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Instances != 1 || len(rep.Results) != 1 || rep.Results[0].Lines != 1 {
		t.Fatalf("--json: exit %d, %v, %+v\n%s", code, err, rep, errOut)
	}

	runFailures(t, dir, []cliFailure{
		{"no instances", []string{"eval", "swebench", "--repo", "shop/shop=" + dir}, 2, "want --instances"},
		{"no clones", []string{"eval", "swebench", "--instances", inst}, 2, "no clones"},
		// --repos given, but without an owner__name clone in it: the
		// message names what it looked for, not "give --repos".
		{"no clone in --repos", []string{"eval", "swebench", "--instances", inst, "--repos", dir}, 2, "--repos " + dir + ": no clone of the instances' repositories in it (looked for " + filepath.Join(dir, "shop__shop") + ";"},
		{"--repos not a directory", []string{"eval", "swebench", "--instances", inst, "--repos", filepath.Join(dir, "nope")}, 2, "not a directory"},
		{"bad repo", []string{"eval", "swebench", "--instances", inst, "--repo", dir}, 2, "owner/name=PATH"},
		{"missing clone", []string{"eval", "swebench", "--instances", inst, "--repo", "shop/shop=" + filepath.Join(dir, "nope")}, 2, "not a directory"},
		{"other repo", []string{"eval", "swebench", "--instances", inst, "--repo", "a/b=" + dir}, 1, "no instance has a clone"},
		{"missing file", []string{"eval", "swebench", "--instances", inst + ".none", "--repo", "shop/shop=" + dir}, 1, "no such file"},
	})
}
