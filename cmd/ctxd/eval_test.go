package main

import (
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

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", []string{"eval"}, 2, "want the subcommand recall"},
		{"bad budgets", []string{"eval", "recall", "--budgets", "8k"}, 2, "--budgets"},
		{"no eligible commits", []string{"eval", "recall", "--repo", t.TempDir()}, 1, "git log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCtxd(t, dir, "", nil, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}
