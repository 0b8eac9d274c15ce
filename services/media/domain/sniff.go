// Package domain holds the media service's uploads and their rules: what an
// upload may be (its headers, its size, its type by Sniff), the daily quota
// and the new accounts' smaller one, the upload rate, the total cap, who owns
// an upload and its claim, what the sweeper deletes, the adoption of legacy
// GridFS files. No storage, no transport: time is a parameter.
package domain

import (
	"bytes"

	contract "marketplace/libs/contracts/media"
)

// Sniff names the image type of b by its leading bytes (its magic number):
// PNG, JPEG, GIF or WebP. ok is false for anything else. Only the signature is
// read: the rest of the file is not decoded (see docs/adr/0047-media-upload-and-download.md).
func Sniff(b []byte) (contentType string, ok bool) {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return contract.TypePNG, true
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return contract.TypeJPEG, true
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return contract.TypeGIF, true
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WEBP")):
		return contract.TypeWebP, true
	}
	return "", false
}
