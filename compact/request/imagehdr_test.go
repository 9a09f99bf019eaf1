package request

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// headerImages encodes images of every kind the header readers meet with
// the standard library's encoders (test-only imports: they do not reach
// the binary).
func headerImages(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	enc := func(name string, f func(*bytes.Buffer) error) {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = buf.Bytes()
	}
	r := image.Rect(0, 0, 640, 480)
	pal := image.NewPaletted(image.Rect(0, 0, 33, 1999), palette.Plan9)
	for _, tt := range []struct {
		name string
		img  image.Image
	}{
		{"gray", image.NewGray(r)},
		{"gray16", image.NewGray16(image.Rect(0, 0, 1, 70000))},
		{"rgba", image.NewRGBA(image.Rect(0, 0, 4096, 3))},
		{"nrgba64", image.NewNRGBA64(image.Rect(0, 0, 17, 5))},
		{"paletted", pal},
		{"paletted 2 colors", image.NewPaletted(image.Rect(0, 0, 9, 9), color.Palette{color.Black, color.White})},
		{"1x1", image.NewRGBA(image.Rect(0, 0, 1, 1))},
	} {
		enc("png "+tt.name, func(b *bytes.Buffer) error { return png.Encode(b, tt.img) })
	}
	enc("gif plan9", func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) })
	enc("gif 2 colors", func(b *bytes.Buffer) error {
		return gif.Encode(b, image.NewPaletted(image.Rect(0, 0, 65535, 2), color.Palette{color.Black, color.White}), nil)
	})
	enc("gif local palette", func(b *bytes.Buffer) error {
		return gif.EncodeAll(b, &gif.GIF{Image: []*image.Paletted{pal}, Delay: []int{0},
			Config: image.Config{Width: 40, Height: 2000}})
	})
	enc("jpeg ycbcr", func(b *bytes.Buffer) error { return jpeg.Encode(b, image.NewRGBA(image.Rect(0, 0, 300, 7)), nil) })
	enc("jpeg gray", func(b *bytes.Buffer) error { return jpeg.Encode(b, image.NewGray(r), nil) })
	return out
}

// decodeConfigSize is the size image.DecodeConfig reads with the PNG, GIF
// and JPEG decoders registered.
func decodeConfigSize(b []byte) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	return cfg.Width, cfg.Height, err
}

func TestImageSizeMatchesDecodeConfig(t *testing.T) {
	for name, b := range headerImages(t) {
		t.Run(name, func(t *testing.T) {
			ww, wh, werr := decodeConfigSize(b)
			if werr != nil {
				t.Fatalf("DecodeConfig: %v", werr)
			}
			w, h, err := imageSize(b)
			if err != nil || w != ww || h != wh {
				t.Errorf("imageSize = %d, %d, %v; DecodeConfig %d, %d", w, h, err, ww, wh)
			}
			// Every prefix: an error or DecodeConfig's size, never a panic
			// or another size.
			for n := range len(b) {
				w, h, err := imageSize(b[:n])
				if err != nil {
					continue
				}
				if w != ww || h != wh {
					t.Fatalf("prefix of %d bytes: %d, %d, want %d, %d", n, w, h, ww, wh)
				}
			}
		})
	}
}

func TestImageSizeRejects(t *testing.T) {
	png1 := headerImages(t)["png 1x1"]
	corrupt := func(i int, v byte) []byte {
		b := bytes.Clone(png1)
		b[i] = v
		return b
	}
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"text", []byte("hello, world")},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 ")},
		{"png signature only", []byte(pngSignature)},
		{"png IHDR cut", png1[:20]},
		{"png bad crc", corrupt(29, png1[29]^1)},
		{"png not IHDR first", corrupt(12, 'i')},
		{"gif short", []byte("GIF89a\x01\x00")},
		{"gif bad version", []byte("GIF88a\x01\x00\x01\x00\x00\x00\x00")},
		{"gif color table cut", []byte("GIF89a\x01\x00\x01\x00\x81\x00\x00\x00\x00\x00")},
		{"jpeg soi only", []byte{0xff, 0xd8}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if w, h, err := imageSize(tt.b); err == nil {
				t.Errorf("imageSize = %d, %d, want an error", w, h)
			}
		})
	}
}

// FuzzImageSize holds imageSize to image.DecodeConfig on any bytes: no
// panic, and whenever DecodeConfig reads a size imageSize reads the same.
// imageSize may read a size where DecodeConfig gives up after the header
// (a paletted PNG cut before its palette): the size only prices an image.
func FuzzImageSize(f *testing.F) {
	for _, b := range headerImages(f) {
		f.Add(b[:min(len(b), 2048)])
	}
	f.Add([]byte("GIF87a\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, h, err := imageSize(b)
		if err == nil && (w < 0 || h < 0) {
			t.Fatalf("negative size %d, %d", w, h)
		}
		ww, wh, werr := decodeConfigSize(b)
		if werr == nil && (err != nil || w != ww || h != wh) {
			t.Fatalf("imageSize = %d, %d, %v; DecodeConfig %d, %d", w, h, err, ww, wh)
		}
	})
}
