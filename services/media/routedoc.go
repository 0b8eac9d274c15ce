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
	Description: "The body is the image itself (not a form): a PNG, JPEG, WebP or GIF, recognised by its content, 1 byte to 5 MiB, with a Content-Type of image/* and no Content-Encoding. The answer's storageId goes into photoIds of the operations that take photos; GET /api/storage/{storageId} serves it.",
	Body:        imageBodies,
	Responses: []ops.ResponseDoc{{Status: http.StatusOK, Description: "Stored.",
		Bodies: []ops.BodyDoc{ops.JSONBody[contract.Uploaded]()}}},
	Codes: []apperr.Code{apperr.InvalidArgument, apperr.Unauthenticated, apperr.Unavailable, apperr.Internal},
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
