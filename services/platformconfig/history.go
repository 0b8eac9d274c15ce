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
}

// getConfigHistory pages through a configuration's history, newest first.
func (s *svc) getConfigHistory(ctx context.Context, a *historyArgs) (page.Result[HistoryEntryView], error) {
	if err := s.configs.Exists(ctx, a.ConfigID); err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	r, err := s.history.Page(ctx, a.ConfigID, a.PaginationOpts)
	if err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	out := page.Result[HistoryEntryView]{Page: make([]HistoryEntryView, len(r.Page)), IsDone: r.IsDone, ContinueCursor: r.ContinueCursor}
	for i := range r.Page {
		out.Page[i] = r.Page[i].View()
	}
	return out, nil
}
