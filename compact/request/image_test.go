package request

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"
)

func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestImageTokens(t *testing.T) {
	tests := []struct {
		name string
		rule ImageRule
		img  Image
		want int
	}{
		{"openai low", ImageOpenAI, Image{Detail: "low", Width: 4000, Height: 4000}, 85},
		{"openai unknown", ImageOpenAI, Image{}, 1445},
		{"openai 1024 square", ImageOpenAI, Image{Width: 1024, Height: 1024}, 85 + 170*4},
		{"openai 2048x4096", ImageOpenAI, Image{Detail: "high", Width: 2048, Height: 4096}, 85 + 170*6},
		{"openai small", ImageOpenAI, Image{Width: 64, Height: 32}, 85 + 170},
		{"anthropic 1000x1000", ImageAnthropic, Image{Width: 1000, Height: 1000}, 1334},
		{"anthropic big capped", ImageAnthropic, Image{Width: 5000, Height: 5000}, 1600},
		{"anthropic unknown", ImageAnthropic, Image{}, 1600},
		{"anthropic tiny", ImageAnthropic, Image{Width: 10, Height: 10}, 1},
		{"gemini", ImageGemini, Image{Width: 4000, Height: 10}, 258},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ImageTokens(tt.rule, tt.img); got != tt.want {
				t.Errorf("ImageTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestImageDimensions(t *testing.T) {
	data := pngBase64(t, 640, 480)
	bodies := []struct {
		name, body string
	}{
		{"chat data url", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + data + `","detail":"high"}}]}]}`},
		{"anthropic base64", `{"system":"s","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}]}]}`},
		{"responses input_image", `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + data + `"}]}]}`},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body, "")
			imgs := r.Items[0].Segments[0].Images()
			if len(imgs) != 1 || imgs[0].Width != 640 || imgs[0].Height != 480 {
				t.Errorf("images = %+v, want one 640x480", imgs)
			}
		})
	}
	r := mustParse(t, `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,!!!notbase64"}}]}]}`, "")
	for _, s := range r.Items[0].Segments {
		if s.Images()[0].Width != 0 {
			t.Errorf("unknown image got dimensions %+v", s.Images()[0])
		}
		if got := ImageTokens(ImageOpenAI, s.Images()[0]); got != OpenAIImageUnknown {
			t.Errorf("unknown image costs %d, want the conservative %d", got, OpenAIImageUnknown)
		}
	}
}
