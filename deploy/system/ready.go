package system

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"marketplace/libs/httpserver"
)

// serviceChecks are the all-in-one's readiness checks of its in-process
// services, one a service ("service:<name>"): each asks the service's own
// GET /readyz on its loopback port (its database, its broker, its
// consumers). The gateway's /readyz adds them to its own check of the
// routing table, so the process's one readiness answer says which service
// is not ready and why.
func serviceChecks(services map[string]string) []httpserver.Check {
	names := make([]string, 0, len(services))
	for n := range services {
		names = append(names, n)
	}
	slices.Sort(names)
	checks := make([]httpserver.Check, len(names))
	for i, n := range names {
		checks[i] = httpserver.Check{Name: "service:" + n, Fn: readyCheck(services[n])}
	}
	return checks
}

// readyCheck asks baseURL's GET /readyz: nil when it answers 200, else an
// error naming its failed checks.
func readyCheck(baseURL string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return errors.New("not ready: no answer within the readiness deadline")
			}
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		var answer struct {
			Failed map[string]string `json:"failed"`
		}
		if json.Unmarshal(body, &answer) != nil || len(answer.Failed) == 0 {
			return fmt.Errorf("not ready: HTTP %d", resp.StatusCode)
		}
		why := make([]string, 0, len(answer.Failed))
		for k, v := range answer.Failed {
			why = append(why, k+": "+v)
		}
		slices.Sort(why)
		return fmt.Errorf("not ready: %s", strings.Join(why, "; "))
	}
}
