//go:build cgo && !notreesitter

package treesitter

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestPrepare: Prepare's tags and views are FileTagsStored's and Views', it
// leaves the process caches alone, and afterwards every view (kept
// functions too) renders from the store without parsing the file, with
// the same bytes as a fresh parse; backed by records, the store keeps its
// analyses there.
func TestPrepare(t *testing.T) {
	for _, c := range storeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			resetCaches()
			want := allViews(t, c, nil)
			wantTags, _ := FileTagsStored(t.Context(), c.lang, c.src, nil)
			wantViews, werr := Views(t.Context(), c.lang, c.src, Options{})

			resetCaches()
			s := NewStore()
			recs := testutil.NewRecords()
			if err := s.SetRecords(recs); err != nil {
				t.Fatal(err)
			}
			tags, vs, err := Prepare(t.Context(), c.lang, c.src, s, true)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(wantTags, tags); d != "" {
				t.Errorf("tags (-FileTagsStored +Prepare):\n%s", d)
			}
			if werr == nil {
				if d := cmp.Diff(wantViews, vs); d != "" {
					t.Errorf("views (-Views +Prepare):\n%s", d)
				}
			} else if vs != nil {
				t.Errorf("Prepare has views where Views fails (%v)", werr)
			}
			if n := analysisCache.len() + viewCache.len(); n != 0 {
				t.Errorf("Prepare left %d entries in the process caches", n)
			}
			if recs.Len() != 1 {
				t.Errorf("%d analyses in the records, want 1", recs.Len())
			}
			if _, again, err := Prepare(t.Context(), c.lang, c.src, s, false); err != nil || !cmp.Equal(again, vs) {
				t.Errorf("second Prepare: %v", err)
			}
			s2 := roundTrip(t, s)
			if st := s2.Stats(); st.Analyses != 0 {
				t.Errorf("the encoding holds %d analyses beside the records", st.Analyses)
			}
			s2.SetRecords(recs)
			resetCaches()
			if got := allViews(t, c, s2); got != want {
				t.Errorf("views after Prepare differ from a parse's (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// TestWithoutCaches: under WithoutCaches, Views, FocusViews and
// SymbolsStored give what they give otherwise and put nothing into the
// process caches; what is there already is still used.
func TestWithoutCaches(t *testing.T) {
	for _, c := range storeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			resetCaches()
			ctx := WithoutCaches(t.Context())
			s := NewStore()
			vs, verr := Views(ctx, c.lang, c.src, Options{Store: s})
			fs, ferr := SymbolsStored(ctx, c.lang, c.src, s)
			fv, fverr := FocusViews(ctx, c.lang, c.src, Options{Store: s})
			if n := analysisCache.len() + viewCache.len(); n != 0 {
				t.Errorf("%d entries in the process caches", n)
			}
			resetCaches()
			wvs, wverr := Views(t.Context(), c.lang, c.src, Options{})
			wfs, wferr := SymbolsStored(t.Context(), c.lang, c.src, nil)
			wfv, wfverr := FocusViews(t.Context(), c.lang, c.src, Options{})
			if (verr == nil) != (wverr == nil) || (ferr == nil) != (wferr == nil) || (fverr == nil) != (wfverr == nil) {
				t.Fatalf("errors differ: %v %v %v, want %v %v %v", verr, ferr, fverr, wverr, wferr, wfverr)
			}
			if d := cmp.Diff(wvs, vs); d != "" {
				t.Errorf("views (-cached +without):\n%s", d)
			}
			if d := cmp.Diff(wfs, fs); d != "" {
				t.Errorf("symbols (-cached +without):\n%s", d)
			}
			if d := cmp.Diff(wfv, fv); d != "" {
				t.Errorf("focus views (-cached +without):\n%s", d)
			}
			if analysisCache.len() == 0 {
				return // nothing cached: a file with syntax errors
			}
			n := analysisCache.len() + viewCache.len()
			if _, err := Views(ctx, c.lang, c.src, Options{}); (err == nil) != (wverr == nil) {
				t.Errorf("views from the cache: %v", err)
			}
			if m := analysisCache.len() + viewCache.len(); m != n {
				t.Errorf("%d entries in the caches after a hit, want %d", m, n)
			}
		})
	}
}
