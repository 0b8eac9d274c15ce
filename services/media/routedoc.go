package media

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/ops"
)

// The documentation of the routes (GET /ops lists it; the OpenAPI document
// and docs/api.md are generated from it; the black-box tests validate real
// answers against it).

// imageBodies are the image types an upload may be and a download is.
var imageBodies = []ops.BodyDoc{{ContentType: contract.TypePNG}, {ContentType: contract.TypeJPEG}, {ContentType: contract.TypeWebP}, {ContentType: contract.TypeGIF}}

var uploadDoc = &ops.RouteDoc{
	Description: "The body is the image itself (not a form): a PNG, JPEG, WebP or GIF, recognised by its content, 1 byte to 5 MiB, with a Content-Type of image/* and no Content-Encoding (a compressed body is INVALID_ARGUMENT). The answer's storageId goes into photoIds of the operations that take photos; GET /api/storage/{storageId} serves it. " +
		"An upload no operation attaches within 24 hours (MEDIA_UNREFERENCED_GRACE) is deleted. Per user: 5 uploads at once, then one every 20 seconds, and 100 MiB in any 24 hours (MEDIA_UPLOAD_BURST, MEDIA_UPLOAD_INTERVAL, MEDIA_DAILY_UPLOAD_BYTES): beyond, RATE_LIMITED with Retry-After in seconds. When the service's storage is full (MEDIA_MAX_STORED_BYTES), UNAVAILABLE with Retry-After.",
	Body: imageBodies,
	Responses: []ops.ResponseDoc{{Status: http.StatusOK, Description: "Stored.",
		Bodies: []ops.BodyDoc{ops.JSONBody[contract.Uploaded]()}}},
	Codes: []apperr.Code{apperr.InvalidArgument, apperr.Unauthenticated, apperr.RateLimited, apperr.Unavailable, apperr.Internal},
}

var downloadDoc = &ops.RouteDoc{
	Description: "The stored bytes with their Content-Type, a strong ETag (the quoted SHA-256 of the bytes), Cache-Control: " + CacheControl + " and X-Content-Type-Options: nosniff. A malformed or unknown storage id is NOT_FOUND.",
	Headers:     []ops.HeaderDoc{{Name: fiber.HeaderIfNoneMatch, Description: "an ETag from an earlier answer: 304 when it still matches"}},
	Responses: []ops.ResponseDoc{
		{Status: http.StatusOK, Description: "The image.", Bodies: imageBodies, Headers: []ops.HeaderDoc{
			{Name: fiber.HeaderETag, Description: "the quoted SHA-256 of the bytes"},
			{Name: fiber.HeaderCacheControl, Description: CacheControl},
		}},
		{Status: http.StatusNotModified, Description: "The If-None-Match tag matches: no body."},
	},
	Codes: []apperr.Code{apperr.NotFound, apperr.Internal},
}
