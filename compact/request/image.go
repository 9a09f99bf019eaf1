package request

import (
	"encoding/base64"
	"math"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/tokens"
)

// ImageRule is a provider's rule for the tokens an image costs. The rules
// and their sources are in docs/compaction.md.
type ImageRule string

// The image rules.
const (
	// ImageOpenAI: detail "low" costs 85 tokens; "high" and "auto" cost 85
	// plus 170 per 512-pixel tile after the image is scaled to fit
	// 2048x2048 and then so its shortest side is at most 768.
	ImageOpenAI ImageRule = "openai"
	// ImageAnthropic: width*height/750 after scaling the long edge to at
	// most 1568 pixels, about 1600 at most.
	ImageAnthropic ImageRule = "anthropic"
	// ImageGemini: 258 tokens per image.
	ImageGemini ImageRule = "gemini"
)

// Defaults for images whose dimensions are unknown (a URL, a file id, or
// bytes in a format whose header we do not read). Each is the rule's
// maximum, so an unknown image never costs more than estimated.
const (
	// OpenAIImageLow is the cost of a "low" detail image.
	OpenAIImageLow = 85
	// OpenAIImageUnknown is 85 + 170*8: the largest tile count (4x2) an
	// image can have after OpenAI's scaling.
	OpenAIImageUnknown = 85 + 170*8
	// AnthropicImageUnknown is the cost of a 1568x1568-bounded image of
	// about 1.15 megapixels, Anthropic's documented maximum.
	AnthropicImageUnknown = 1600
	// GeminiImage is Gemini's flat per-image cost.
	GeminiImage = 258
)

// ImageRuleFor picks the image rule of a model's provider; a model the
// registry does not place falls back to the request format's provider.
func ImageRuleFor(m ctxd.Model, f Format) ImageRule {
	switch m.Provider {
	case tokens.ProviderAnthropic:
		return ImageAnthropic
	case tokens.ProviderGoogle:
		return ImageGemini
	case tokens.ProviderOpenAI:
		return ImageOpenAI
	}
	if f == FormatAnthropic {
		return ImageAnthropic
	}
	return ImageOpenAI
}

// ImageTokens returns the tokens img costs under rule.
func ImageTokens(rule ImageRule, img Image) int {
	switch rule {
	case ImageGemini:
		return GeminiImage
	case ImageAnthropic:
		if img.Width <= 0 || img.Height <= 0 {
			return AnthropicImageUnknown
		}
		w, h := float64(img.Width), float64(img.Height)
		if long := math.Max(w, h); long > 1568 {
			w, h = w*1568/long, h*1568/long
		}
		n := int(math.Ceil(w * h / 750))
		return min(max(n, 1), AnthropicImageUnknown)
	}
	if img.Detail == "low" {
		return OpenAIImageLow
	}
	if img.Width <= 0 || img.Height <= 0 {
		return OpenAIImageUnknown
	}
	w, h := float64(img.Width), float64(img.Height)
	if long := math.Max(w, h); long > 2048 {
		w, h = w*2048/long, h*2048/long
	}
	if short := math.Min(w, h); short > 768 {
		w, h = w*768/short, h*768/short
	}
	tiles := int(math.Ceil(w/512)) * int(math.Ceil(h/512))
	return 85 + 170*tiles
}

// imageOf reads an image part's detail and, for inline base64 data, its
// dimensions from the header. Part shapes: Chat {"type":"image_url",
// "image_url":{"url","detail"}}, Responses {"type":"input_image",
// "image_url","detail"}, Anthropic {"type":"image","source":{"type":
// "base64","data"}}.
func imageOf(b []byte, o obj, typ string) Image {
	var img Image
	img.Detail = o.str(b, "detail")
	var data string
	switch typ {
	case "image_url":
		if v, ok := o.get("image_url"); ok {
			switch kindOf(b, v) {
			case '{':
				if io, err := parseObj(b, v); err == nil {
					data = io.str(b, "url")
					if d := io.str(b, "detail"); d != "" {
						img.Detail = d
					}
				}
			case '"':
				data, _ = decodeString(b[v.Start:v.End])
			}
		}
	case "input_image", "computer_screenshot":
		data = o.str(b, "image_url")
	case "image":
		if v, ok := o.get("source"); ok && kindOf(b, v) == '{' {
			if so, err := parseObj(b, v); err == nil && so.str(b, "type") == "base64" {
				data = so.str(b, "data")
			}
		}
	}
	if strings.HasPrefix(data, "data:") {
		if i := strings.Index(data, ","); i >= 0 {
			data = data[i+1:]
		}
	} else if strings.HasPrefix(data, "http:") || strings.HasPrefix(data, "https:") {
		data = ""
	}
	img.Width, img.Height = base64Dims(data)
	return img
}

// base64Dims decodes enough of a base64 image to read its dimensions; 0, 0
// when it cannot.
func base64Dims(data string) (w, h int) {
	if data == "" {
		return 0, 0
	}
	// 64 KiB of image is enough for PNG and GIF headers and for JPEG
	// frames after typical EXIF blocks.
	n := min(len(data), 4*(64<<10)/3) &^ 3
	raw, err := base64.StdEncoding.DecodeString(data[:n])
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data[:n], "="))
		if err != nil {
			return 0, 0
		}
	}
	w, h, err = imageSize(raw)
	if err != nil {
		return 0, 0
	}
	return w, h
}
