package eval

import (
	"reflect"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFeatureItemCopiesFacts: FeatureItem is the --features file's
// projection of ctxd.Facts, not a second table of them: each of its
// fields named as a field of Facts has that field's type and JSON name
// (a fact is called one thing in the envelope and in the training data),
// and featureCase fills it from the chunk's facts (a field declared and
// never copied would write zero for every chunk and fit nothing).
func TestFeatureItemCopiesFacts(t *testing.T) {
	item, facts := reflect.TypeFor[FeatureItem](), reflect.TypeFor[ctxd.Facts]()
	var f ctxd.Facts
	fv := reflect.ValueOf(&f).Elem()
	var shared []string
	for i := range item.NumField() {
		it := item.Field(i)
		ft, ok := facts.FieldByName(it.Name)
		if !ok {
			continue
		}
		shared = append(shared, it.Name)
		if it.Type != ft.Type || it.Tag.Get("json") != ft.Tag.Get("json") {
			t.Errorf("FeatureItem.%s is %s `json:%q`, Facts.%s %s `json:%q`", it.Name, it.Type, it.Tag.Get("json"), ft.Name, ft.Type, ft.Tag.Get("json"))
			continue
		}
		// A value that is no field's zero.
		v := fv.FieldByName(it.Name)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x-" + it.Name)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int:
			v.SetInt(int64(7 + i))
		case reflect.Float64:
			v.SetFloat(0.5 + float64(i))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		default:
			t.Fatalf("Facts.%s: a %s the test cannot set", it.Name, v.Kind())
		}
	}
	if len(shared) < 10 {
		t.Fatalf("FeatureItem shares %d fields with Facts (%v): the test reads the wrong types", len(shared), shared)
	}
	fc := featureCase(0, Case{Commit: "c0ffee"}, 8000, []ctxd.Chunk{{Source: "a.go", Facts: f}}, &ctxd.Envelope{})
	if len(fc.Chunks) != 1 {
		t.Fatalf("%d feature items of one chunk", len(fc.Chunks))
	}
	got := reflect.ValueOf(fc.Chunks[0])
	for _, name := range shared {
		if a, b := got.FieldByName(name).Interface(), fv.FieldByName(name).Interface(); !reflect.DeepEqual(a, b) {
			t.Errorf("FeatureItem.%s = %v, the chunk's facts %v", name, a, b)
		}
	}
}
