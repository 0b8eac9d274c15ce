// Package asset serves files held in memory (the console's build, the API
// reference's renderer, the gateway's OpenAPI document): each prepared once,
// gzipped once when that is smaller, sent with its ETag and answered 304 on a
// matching If-None-Match.
package asset

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/httpserver"
)

// File is one embedded file, ready to send.
type File struct {
	Body  []byte
	gz    []byte // gzip of Body when that is smaller, else nil
	ctype string
	ETag  string
}

// New prepares body for sending with the content type ctype.
func New(body []byte, ctype string) *File {
	sum := sha256.Sum256(body)
	f := &File{Body: body, ctype: ctype, ETag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	if buf.Len() < len(body) {
		f.gz = buf.Bytes()
	}
	return f
}

// ContentType is the content type of a file by its name's extension.
func ContentType(name string) string {
	switch path.Ext(name) {
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Send answers f: 304 when the client holds it already, gzipped when the
// client accepts that.
func Send(c *fiber.Ctx, f *File) error {
	c.Set(fiber.HeaderETag, f.ETag)
	c.Set(fiber.HeaderContentType, f.ctype)
	if f.gz != nil {
		c.Vary(fiber.HeaderAcceptEncoding)
	}
	if httpserver.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), f.ETag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	if f.gz != nil && AcceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(f.gz)
	}
	return c.Send(f.Body)
}

// AcceptsGzip reads Accept-Encoding: gzip (or *) listed without q=0.
func AcceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			return false
		}
		return true
	}
	return false
}
