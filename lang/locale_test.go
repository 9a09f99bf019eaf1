package lang_test

import (
	"testing"

	"github.com/ctxd/ctxd/lang"
)

func TestLocale(t *testing.T) {
	tests := []struct {
		path, tag, page string
	}{
		// Locale folders (fastapi's docs/<lang>/docs/..., Docusaurus's i18n).
		{"docs/zh/docs/tutorial/dependencies/index.md", "zh", "docs/docs/tutorial/dependencies/index.md"},
		{"docs/en/docs/tutorial/dependencies/index.md", "en", "docs/docs/tutorial/dependencies/index.md"},
		{"docs/zh-hant/docs/index.md", "zh-hant", "docs/docs/index.md"},
		{"docs/pt-BR/guide.md", "pt-br", "docs/guide.md"},
		{"docs/pt_BR/guide.md", "pt-br", "docs/guide.md"},
		{"content/zh-Hant-TW/a.rst", "zh-hant-tw", "content/a.rst"},
		{"ja/README.md", "ja", "README.md"},
		{"i18n/fr/docusaurus-plugin-content-docs/current/intro.mdx", "fr", "i18n/docusaurus-plugin-content-docs/current/intro.mdx"},
		// Language suffixes.
		{"README.zh-CN.md", "zh-cn", "README.md"},
		{"docs/index.ja.md", "ja", "docs/index.md"},
		{"README_zh-CN.md", "zh-cn", "README.md"},
		{"README-pt_BR.md", "pt-br", "README.md"},
		{"README_zh.md", "zh", "README.md"},
		{"README-JP.md", "ja", "README.md"},
		{"README_CN.md", "zh-cn", "README.md"},
		{"CONTRIBUTING_ES.md", "es", "CONTRIBUTING.md"},
		{"docs/guide.DE.md", "de", "docs/guide.md"},
		// Not translations: no tag, or not documentation text.
		{"docs/en/script.py", "", "docs/en/script.py"},
		{"locales/fr.json", "", "locales/fr.json"},
		{"src/es/index.js", "", "src/es/index.js"},
		{"docs/user-id.md", "", "docs/user-id.md"},
		{"docs/setup_es.md", "", "docs/setup_es.md"},
		{"docs/my-lib/readme.md", "", "docs/my-lib/readme.md"},
		{"docs/api.md", "", "docs/api.md"},
		{"README.md", "", "README.md"},
		{"docs/docs/README.en-us-x.md", "", "docs/docs/README.en-us-x.md"},
		{"notes.v2.md", "", "notes.v2.md"},
		{"README-ZZ.md", "", "README-ZZ.md"},
	}
	for _, tt := range tests {
		tag, page := lang.Locale(tt.path)
		if tag != tt.tag || page != tt.page {
			t.Errorf("Locale(%q) = %q, %q; want %q, %q", tt.path, tag, page, tt.tag, tt.page)
		}
	}
}

// TestCopyLocale: copies per language of code and gettext catalogues.
func TestCopyLocale(t *testing.T) {
	tests := []struct {
		path, tag, page string
		catalogue       bool
	}{
		{"django/conf/locale/de/formats.py", "de", "django/conf/locale/formats.py", false},
		{"django/conf/locale/pt_BR/formats.py", "pt-br", "django/conf/locale/formats.py", false},
		{"django/conf/locale/de/LC_MESSAGES/django.po", "de", "django/conf/locale/LC_MESSAGES/django.po", true},
		{"sphinx/locale/ca@valencia/LC_MESSAGES/sphinx.po", "ca-valencia", "sphinx/locale/LC_MESSAGES/sphinx.po", true},
		{"sphinx/locale/cak/LC_MESSAGES/sphinx.js", "cak", "sphinx/locale/LC_MESSAGES/sphinx.js", true},
		{"sphinx/locale/en_GB/LC_MESSAGES/sphinx.mo", "en-gb", "sphinx/locale/LC_MESSAGES/sphinx.mo", true},
		{"po/pt_BR.po", "pt-br", "po/.po", true},
		{"de.po", "de", ".po", true},
		{"sphinx/locale/sphinx.pot", "", "sphinx/locale/sphinx.pot", true},
		{"locale/messages.po", "", "locale/messages.po", true},
		{"LC_MESSAGES/x.po", "", "LC_MESSAGES/x.po", true},
		// Not copies: no locale folder.
		{"django/conf/locale/__init__.py", "", "django/conf/locale/__init__.py", false},
		{"locales/fr.json", "", "locales/fr.json", false},
		{"src/js/index.js", "", "src/js/index.js", false},
	}
	for _, tt := range tests {
		tag, page, cat := lang.CopyLocale(tt.path)
		if tag != tt.tag || page != tt.page || cat != tt.catalogue {
			t.Errorf("CopyLocale(%q) = %q, %q, %v; want %q, %q, %v", tt.path, tag, page, cat, tt.tag, tt.page, tt.catalogue)
		}
	}
}

func TestTag(t *testing.T) {
	tests := []struct{ in, want string }{
		{"en", "en"}, {"pt-BR", "pt-br"}, {"pt_br", "pt-br"}, {"zh-Hant", "zh-hant"},
		{"zh-hant-tw", "zh-hant-tw"}, {"es-419", "es-419"}, {"ZH", "zh"},
		{"docs", ""}, {"js", ""}, {"ui", ""}, {"my-lib", ""}, {"en-", ""}, {"-en", ""},
		{"en--us", ""}, {"en-us-gb", ""}, {"", ""}, {"en-u", ""},
	}
	for _, tt := range tests {
		if got := lang.Tag(tt.in); got != tt.want {
			t.Errorf("Tag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextLocale(t *testing.T) {
	tests := []struct{ text, want string }{
		{"fix how solve_dependencies caches sub-dependencies", ""},
		{"依赖项是如何解析的 solve_dependencies", "zh"},
		{"依存関係はどのように解決されますか", "ja"},
		{"의존성은 어떻게 해결됩니까", "ko"},
		{"как разрешаются зависимости", "ru"},
		{"як вирішуються залежності", "uk"},
		{"update the Japanese translation of the tutorial", "ja"},
		{"the Brazilian Portuguese docs", "pt-br"},
		{"handle the café's naïve résumé", ""},
		{"rename 值 in x", ""}, // two Han letters are not a request in Chinese
		{"German", "de"},
	}
	for _, tt := range tests {
		if got := lang.TextLocale(tt.text); got != tt.want {
			t.Errorf("TextLocale(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestPreferred(t *testing.T) {
	tests := []struct {
		tags []string
		want string
		i    int
	}{
		{[]string{"de", "en", "es", "zh"}, "", 1},
		{[]string{"de", "en", "es", "zh"}, "zh", 3},
		{[]string{"de", "en", "zh-hant"}, "zh", 2},
		{[]string{"en", "zh-cn", "zh-tw"}, "zh-tw", 2},
		{[]string{"zh-cn", "", "ja"}, "", 1},
		{[]string{"zh-cn", "", "ja"}, "ko", 1},
		{[]string{"ja", "ko"}, "", 0},
		{[]string{"ja", "ko", "en-us"}, "", 2},
	}
	for _, tt := range tests {
		if got := lang.Preferred(tt.tags, tt.want); got != tt.i {
			t.Errorf("Preferred(%q, %q) = %d, want %d", tt.tags, tt.want, got, tt.i)
		}
	}
}
