package httpserver

import "strings"

// ETagMatches applies an If-None-Match header to an answer's entity tag with
// the weak comparison of RFC 9110 13.1.2: "*" matches any, a list matches
// when one of its tags does, W/ prefixes are ignored. An empty header or tag
// never matches.
func ETagMatches(ifNoneMatch, etag string) bool {
	if strings.TrimSpace(ifNoneMatch) == "" || etag == "" {
		return false
	}
	if strings.TrimSpace(ifNoneMatch) == "*" {
		return true
	}
	etag = strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(ifNoneMatch, ",") {
		if strings.TrimPrefix(strings.TrimSpace(t), "W/") == etag {
			return true
		}
	}
	return false
}
