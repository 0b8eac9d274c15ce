package domain

import (
	"math"

	"marketplace/libs/apperr"
)

// A store's rating over time (stores.reviews.getRatingHistory), computed on
// read from its visible reviews (docs/adr/0164).

// Bounds of a rating history: the period (days) and the reviews read.
const (
	MaxHistoryDays    = 366
	MaxHistoryReviews = 20000
)

const (
	dayMs         = int64(24 * 60 * 60 * 1000)
	dubaiOffsetMs = int64(4 * 60 * 60 * 1000) // Dubai keeps UTC+4 all year
)

// DubaiWeekStart is the start (epoch ms) of the Dubai week (from Monday
// midnight, Dubai time) ms falls in.
func DubaiWeekStart(ms int64) int64 {
	local := ms + dubaiOffsetMs
	d := local / dayMs
	if local%dayMs < 0 {
		d--
	}
	monday := ((d+3)%7 + 7) % 7 // 1 January 1970 was a Thursday
	return (d-monday)*dayMs - dubaiOffsetMs
}

// CheckHistoryPeriod refuses a reversed period or one longer than
// MaxHistoryDays (INVALID_ARGUMENT).
func CheckHistoryPeriod(from, to int64) error {
	if from > to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", from, to)
	}
	if to-from > MaxHistoryDays*dayMs {
		return apperr.Invalid("to", "a history covers at most %d days; ask for a shorter period", MaxHistoryDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": MaxHistoryDays})
	}
	return nil
}

// TooManyReviews refuses a history whose period holds more than max reviews.
func TooManyReviews(max int) error {
	return apperr.New(apperr.FailedPrecondition, "the period has more than %d reviews; ask for a shorter period", max).
		WithDetails(map[string]any{"reason": "too_many_reviews", "maxReviews": max})
}

// RatingWeek is one week of a rating history: how many visible reviews were
// written in it and their average rating (null without any).
type RatingWeek struct {
	WeekStart int64    `json:"weekStart"`
	Count     int      `json:"count"`
	Average   *float64 `json:"average"`
}

// RatingHistory is getRatingHistory's answer.
type RatingHistory struct {
	From  int64        `json:"from"`
	To    int64        `json:"to"`
	Weeks []RatingWeek `json:"weeks"`
}

// HistoryOf sums the reviews written from from to to (epoch ms, inclusive)
// by Dubai week from Monday: every week of the period, empty ones included.
// Hidden reviews and reviews outside the period are left out. Averages are
// rounded to two decimals.
func HistoryOf(reviews []Review, from, to int64) RatingHistory {
	out := RatingHistory{From: from, To: to, Weeks: []RatingWeek{}}
	index := map[int64]int{}
	for w := DubaiWeekStart(from); w <= to; w += 7 * dayMs {
		index[w] = len(out.Weeks)
		out.Weeks = append(out.Weeks, RatingWeek{WeekStart: w})
	}
	sums := make([]int, len(out.Weeks))
	for _, r := range reviews {
		if r.Hidden || r.CreatedAt < from || r.CreatedAt > to {
			continue
		}
		if i, ok := index[DubaiWeekStart(r.CreatedAt)]; ok {
			out.Weeks[i].Count++
			sums[i] += r.Rating
		}
	}
	for i := range out.Weeks {
		if n := out.Weeks[i].Count; n > 0 {
			avg := math.Round(float64(sums[i])*100/float64(n)) / 100
			out.Weeks[i].Average = &avg
		}
	}
	return out
}
