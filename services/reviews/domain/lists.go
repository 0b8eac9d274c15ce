package domain

import "marketplace/libs/apperr"

// CheckListSort refuses a store's reviews sorted by rating or helpfulness
// within a period (from/to): the indexes store_rating, store_rating_lowest
// and store_helpful order a store's reviews by rating or Wilson bound first,
// so the reviews of a period are scattered through them and the list would
// walk the store's whole index for the few that match (INVALID_ARGUMENT on
// sortBy, details.reason sort_with_filter, as the order lists answer). By
// date (newest, oldest, ""), store_newest serves the period as one range;
// a rating filter with a period is a range of store_rating after the rating.
func CheckListSort(sortBy string, withPeriod bool) error {
	if !withPeriod || sortBy == "" || sortBy == "newest" || sortBy == "oldest" {
		return nil
	}
	return apperr.Invalid("sortBy", "%s goes without from/to: a period lists by newest or oldest", sortBy).
		WithDetails(map[string]any{"field": "sortBy", "reason": "sort_with_filter", "filters": []string{"from/to"}})
}
