package apischema

import (
	"fmt"
	"sort"
	"strings"
)

// How the API reference (GET /docs, Scalar) lists the document's entries.
// Its sidebar shows each entry by its summary, in its tags, and the tags in
// the groups of the x-tagGroups extension (which Scalar, like Redoc, reads;
// a tag in no group would not be shown, so every tag is in one):
//
//   - one group per area (the first segment of an operation's path: admins,
//     catalog, customers, ...), holding a tag per module ("stores.reviews")
//     with the operations' own paths (/api/query/..., /api/mutation/...),
//     each entry named by the operation's path ("stores.reviews.addReview");
//   - the group routesGroup: the gateway's own routes and endpoints (tag
//     gatewayTag) and the services' HTTP routes, a tag per service, each
//     entry named by its HTTP path;
//   - last, apart, the group convexGroup: the same operations again on their
//     /api/run paths, a tag per area, each entry named as Convex's clients
//     name it ("stores/reviews:addReview").
//
// The full text of an operation's declaration stays its description.
const (
	gatewayTag  = "gateway"
	routesGroup = "Gateway and HTTP routes"
	convexGroup = "Convex clients"
)

// OperationTag is the tag of an operation's own path: its area and module,
// "stores.reviews" for "stores.reviews.addReview".
func OperationTag(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}

// Area is the first segment of an operation's path: "stores" for
// "stores.reviews.addReview".
func Area(path string) string {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}

// ConvexTag is the tag of the /api/run entries of an area's operations
// (shown as the area's name, in the group convexGroup).
func ConvexTag(area string) string { return convexGroup + ": " + area }

// tagsAndGroups are the document's tags (each with a description) and its
// x-tagGroups, in the order the reference shows them.
func (a *API) tagsAndGroups() (tags []obj, groups []obj) {
	type module struct{ services map[string]bool }
	modules := map[string]*module{}
	areas := map[string][]string{} // area -> its modules' tags
	for _, o := range a.Operations {
		t := OperationTag(o.Path)
		m := modules[t]
		if m == nil {
			m = &module{services: map[string]bool{}}
			modules[t] = m
			areas[Area(o.Path)] = append(areas[Area(o.Path)], t)
		}
		m.services[o.Service] = true
	}
	areaNames := sortedKeys(areas)
	for _, area := range areaNames {
		list := areas[area]
		sort.Strings(list)
		for _, t := range list {
			tags = append(tags, obj{"name": t, "description": fmt.Sprintf(
				"The operations `%s.*` (declared by the %s), each on its own path: `POST /api/query/%s/<function>` for a query, `POST /api/mutation/%s/<function>` for a mutation. For Convex's clients, the same operations are in the group %s.",
				t, serviceNames(modules[t].services), strings.ReplaceAll(t, ".", "/"), strings.ReplaceAll(t, ".", "/"), convexGroup)})
		}
		groups = append(groups, obj{"name": area, "tags": list})
	}

	routeTags := []string{gatewayTag}
	tags = append(tags, obj{"name": gatewayTag, "description": "The gateway's own routes and its generic operation endpoints (`/api/query` and `/api/mutation`, with the operation's path in the body)."})
	services := map[string]bool{}
	for _, r := range a.Routes {
		services[r.Service] = true
	}
	for _, s := range sortedKeys(services) {
		routeTags = append(routeTags, s)
		tags = append(tags, obj{"name": s, "description": "The HTTP routes of the " + s + " service, called as they are through the gateway."})
	}
	groups = append(groups, obj{"name": routesGroup, "tags": routeTags})

	var convexTags []string
	for _, area := range append(areaNames, gatewayTag) {
		t := ConvexTag(area)
		convexTags = append(convexTags, t)
		desc := fmt.Sprintf("The `%s.*` operations for Convex's clients: `POST /api/run/%s/<module>/<function>`, answered in Convex's shapes (failures with HTTP 200). Generated clients call the same operations on their own paths, in the group %s.", area, area, area)
		if area == gatewayTag {
			desc = "What `POST /api/run/<area>/<module>/<function>` answers for a path that names no public operation."
		}
		tags = append(tags, obj{"name": t, "x-displayName": area, "description": desc})
	}
	groups = append(groups, obj{"name": convexGroup, "tags": convexTags})
	return tags, groups
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// serviceNames is "the reviews service" or "the catalog and customers services".
func serviceNames(set map[string]bool) string {
	names := sortedKeys(set)
	if len(names) == 1 {
		return names[0] + " service"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " services"
}
