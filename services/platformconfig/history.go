package platformconfig

import (
	"context"

	"marketplace/libs/ids"
	"marketplace/libs/page"
)

func newHistoryID() string { return ids.New("platformConfigChanges") }

type historyArgs struct {
	ConfigID       string    `json:"configId" op:"required,id=platformConfig"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest"`
}

// getConfigHistory pages through a configuration's history, newest first
// (sort oldest: oldest first), the changes made from..to when given (epoch
// ms, inclusive; page.NewPeriod).
func (s *svc) getConfigHistory(ctx context.Context, a *historyArgs) (page.Result[HistoryEntryView], error) {
	p, err := page.NewPeriod(a.From, a.To)
	if err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	if err := s.configs.Exists(ctx, a.ConfigID); err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	r, err := s.history.Page(ctx, a.ConfigID, p, a.Sort != nil && *a.Sort == "oldest", a.PaginationOpts)
	if err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	out := page.Result[HistoryEntryView]{Page: make([]HistoryEntryView, len(r.Page)), IsDone: r.IsDone, ContinueCursor: r.ContinueCursor}
	for i := range r.Page {
		out.Page[i] = r.Page[i].View()
	}
	return out, nil
}
