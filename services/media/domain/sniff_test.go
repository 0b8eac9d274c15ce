package domain

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

func TestSniff(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	encode := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"png", encode(func(b *bytes.Buffer) error { return png.Encode(b, img) }), "image/png"},
		{"jpeg", encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) }), "image/jpeg"},
		{"gif", encode(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) }), "image/gif"},
		{"gif87a", []byte("GIF87a\x01\x00\x01\x00"), "image/gif"},
		{"webp", []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"), "image/webp"},
		{"png signature only", []byte("\x89PNG\r\n\x1a\n"), "image/png"},
		{"jpeg signature only", []byte{0xFF, 0xD8, 0xFF}, "image/jpeg"},
		{"empty", nil, ""},
		{"text", []byte("hello, world"), ""},
		{"html", []byte("<html><script>alert(1)</script></html>"), ""},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`), ""},
		{"png truncated", []byte("\x89PNG\r\n\x1a"), ""},
		{"png wrong byte", []byte("\x89PNG\r\n\x1a\x0b rest"), ""},
		{"jpeg two bytes", []byte{0xFF, 0xD8}, ""},
		{"gif other version", []byte("GIF88a......"), ""},
		{"riff but wave", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"webp too short", []byte("RIFF\x00\x00\x00\x00WEB"), ""},
		{"bmp", []byte("BM\x00\x00\x00\x00"), ""},
		{"pdf", []byte("%PDF-1.7"), ""},
	}
	for _, c := range cases {
		got, ok := Sniff(c.b)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: Sniff = %q %v, want %q", c.name, got, ok, c.want)
		}
	}
}
