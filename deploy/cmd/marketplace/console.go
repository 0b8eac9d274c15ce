package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"marketplace/deploy/system"
	"marketplace/libs/auth"
	"marketplace/libs/program"
)

// consoleLinks prints development sign-in links to the admin console and the
// store portal of the running system: an administrator's, and a store
// owner's (by default the owner of the first store the system lists). The
// tokens are minted with the development secret, as `make token`'s, and
// travel in the links' fragments (system.ConsoleLink).
func consoleLinks(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	// The system's public URL, else where the other commands (call, ops)
	// reach it, else its listening address: a second terminal that set
	// MARKETPLACE_URL for call gets links to the same system.
	base := cfg.PublicBaseURL
	if base == "" {
		base = strings.TrimRight(getenv(EnvURL), "/")
	}
	if base == "" {
		base = "http://" + cfg.HTTPAddr
	}
	fs := newFlags("console")
	url := fs.String("url", base, "the gateway's `URL` (default $PUBLIC_BASE_URL, else $"+EnvURL+", else http://$HTTP_ADDR)")
	admin := fs.String("admin", system.DevAdmin, "the administrator's `USER` id")
	owner := fs.String("owner", "", "the store owner's `USER` id (default: the owner of the first store the system lists)")
	ttl := fs.Duration("ttl", system.ConsoleLinkTTL, "how long the links sign in, a `DURATION` such as 30m")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ttl <= 0 || *ttl > 24*time.Hour {
		return fmt.Errorf("console: -ttl must be more than 0 and at most 24h, got %s", *ttl)
	}
	if cfg.JWKSURL != "" {
		return errors.New("console: this system verifies tokens with an identity provider (AUTH_JWKS_URL): sign in there; development links need the development secret")
	}
	secret, err := system.DevSecret(getenv)
	if err != nil {
		return err
	}
	link, err := system.ConsoleLink(*url, "admin", secret, *admin, []string{auth.RoleAdmin}, *ttl, cfg.AuthOptions())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "admin console, as the administrator %s (valid %s):\n  %s\n", *admin, system.Lifetime(*ttl), link)
	ownerSub, storeName := *owner, ""
	if ownerSub == "" {
		ownerSub, storeName, err = firstStoreOwner(ctx, *url)
		if err != nil {
			fmt.Fprintf(stdout, "store portal: no store owner to sign in as (%v); create a store in the console or run `make seed`, or name one: make console OWNER=<user id>\n", err)
			return nil
		}
	}
	link, err = system.ConsoleLink(*url, "store", secret, ownerSub, nil, *ttl, cfg.AuthOptions())
	if err != nil {
		return err
	}
	about := ""
	if storeName != "" {
		about = ", owner of " + storeName
	} else if token, err := auth.Mint([]byte(secret), ownerSub, nil, time.Minute, cfg.AuthOptions()); err == nil {
		// A named owner: say which stores they own, and warn when none
		// (the portal would only offer to wait for one).
		switch names, err := ownedStores(ctx, *url, token); {
		case err != nil:
			fmt.Fprintf(stdout, "store portal: could not check the stores %s owns (%v)\n", ownerSub, err)
		case len(names) == 0:
			fmt.Fprintf(stdout, "warning: %s owns no store: the portal will have nothing to show. Create one for them in the console (Catalog), or leave OWNER out to sign in as the first store's owner\n", ownerSub)
		default:
			about = ", owner of " + strings.Join(names, ", ")
		}
	}
	fmt.Fprintf(stdout, "store portal, as the store owner %s%s (valid %s):\n  %s\n", ownerSub, about, system.Lifetime(*ttl), link)
	return nil
}

// ownedStores asks the running system, as the owner (token), for the
// names of the stores they own (the first 10).
func ownedStores(ctx context.Context, base, token string) ([]string, error) {
	var page struct {
		Page []struct {
			Name string `json:"name"`
		} `json:"page"`
	}
	if err := queryJSON(ctx, base, token, `{"path":"stores.catalog.listMyStores","args":{"paginationOpts":{"numItems":10,"cursor":null}}}`, &page); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(page.Page))
	for _, s := range page.Page {
		names = append(names, s.Name)
	}
	return names, nil
}

// queryJSON posts a query (the contract's /api/query body) to the running
// system, with token when not empty, and decodes its value into out.
func queryJSON(ctx context.Context, base, token, body string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/api/query", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the system at %s does not answer: start it with `make run`", base)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", base, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	return nil
}

// firstStoreOwner asks the running system for its first store (a public
// query) and answers its owner.
func firstStoreOwner(ctx context.Context, base string) (owner, store string, err error) {
	var page struct {
		Page []struct {
			Name        string `json:"name"`
			OwnerUserID string `json:"ownerUserId"`
		} `json:"page"`
	}
	if err := queryJSON(ctx, base, "", `{"path":"catalog.stores.listStores","args":{"paginationOpts":{"numItems":1,"cursor":null}}}`, &page); err != nil {
		return "", "", fmt.Errorf("listing stores: %w", err)
	}
	if len(page.Page) == 0 {
		return "", "", errors.New("the system has no store yet")
	}
	return page.Page[0].OwnerUserID, page.Page[0].Name, nil
}
