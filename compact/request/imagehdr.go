package request

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image/jpeg"
)

// The width and height of an inline image are read from its header by
// imageSize rather than by image.DecodeConfig: registering the PNG and GIF
// decoders for DecodeConfig linked their whole decoders (about 80 KB of the
// release binary, issue 27) to read two numbers. JPEG goes through
// jpeg.DecodeConfig, whose decoder is linked anyway (go-git's openpgp
// imports image/jpeg). TestImageSizeMatchesDecodeConfig and
// FuzzImageSize hold the readers to DecodeConfig: whenever DecodeConfig
// reads a size, imageSize reads the same one.

// errImageHeader is the error of a header imageSize cannot read.
var errImageHeader = errors.New("image header: not a PNG, GIF or JPEG header it can read")

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// imageSize returns the width and height of a PNG, GIF or JPEG image from
// its first bytes; an error for anything else, truncated or corrupt.
func imageSize(b []byte) (w, h int, err error) {
	switch {
	case bytes.HasPrefix(b, []byte(pngSignature)):
		return pngSize(b[len(pngSignature):])
	case len(b) >= 6 && string(b[:4]) == "GIF8" && (b[4] == '7' || b[4] == '9') && b[5] == 'a':
		return gifSize(b)
	case len(b) >= 2 && b[0] == 0xff && b[1] == 0xd8:
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			return 0, 0, err
		}
		return cfg.Width, cfg.Height, nil
	}
	return 0, 0, errImageHeader
}

// pngSize reads the IHDR chunk that must follow the signature: length 13,
// "IHDR", width and height as big-endian 32-bit numbers (each 1 to
// 2^31-1), bit depth, color type, compression, filter, interlace, CRC.
func pngSize(b []byte) (w, h int, err error) {
	const chunk = 4 + 4 + 13 + 4
	if len(b) < chunk || binary.BigEndian.Uint32(b) != 13 || string(b[4:8]) != "IHDR" {
		return 0, 0, errImageHeader
	}
	if crc32.ChecksumIEEE(b[4:21]) != binary.BigEndian.Uint32(b[21:25]) {
		return 0, 0, errImageHeader
	}
	d := b[8:21]
	w32, h32 := int32(binary.BigEndian.Uint32(d)), int32(binary.BigEndian.Uint32(d[4:]))
	if w32 <= 0 || h32 <= 0 || !pngDepthOK(d[8], d[9]) || d[10] != 0 || d[11] != 0 || d[12] > 1 {
		return 0, 0, errImageHeader
	}
	return int(w32), int(h32), nil
}

// pngDepthOK reports whether a PNG color type allows a bit depth (PNG
// specification, table 11.1).
func pngDepthOK(depth, colorType byte) bool {
	switch colorType {
	case 0: // gray
		return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case 3: // paletted
		return depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 2, 4, 6: // RGB, gray and alpha, RGBA
		return depth == 8 || depth == 16
	}
	return false
}

// gifSize reads the logical screen descriptor after the 6-byte signature:
// width and height as little-endian 16-bit numbers, then the flags, whose
// global color table (3 × 2^(n+1) bytes) must follow whole, as
// gif.DecodeConfig requires.
func gifSize(b []byte) (w, h int, err error) {
	const hdr = 6 + 7
	if len(b) < hdr {
		return 0, 0, errImageHeader
	}
	if flags := b[10]; flags&0x80 != 0 && len(b) < hdr+3*(1<<(flags&7+1)) {
		return 0, 0, errImageHeader
	}
	return int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:])), nil
}
