// Command seed fills a running all-in-one (`make run`) with demo data through
// its public API, as client apps would: the platform configuration, UAE
// cities and areas, categories, stores with products and places, customers
// with addresses, orders paid through the checkout and the processor
// simulator and moved along their statuses by the store owners, reviews with
// votes, flags, moderation and store responses, and payouts in every state.
// It shows a progress bar per phase on stderr, then the tokens and calls to
// try next; stdout gets one JSON line with the same summary.
//
//	seed [-seed 1] [-scale 1] [-stores N] [-customers N] [-orders N] [-reviews N] [-payouts N] [-workers 16] [-url URL] [-force]
//
// Each flag defaults to its environment variable (SEED, SEED_SCALE,
// SEED_STORES, SEED_CUSTOMERS, SEED_ORDERS, SEED_REVIEWS, SEED_PAYOUTS,
// SEED_WORKERS, SEED_URL, SEED_FORCE; SEED_RPS is the calls per second per
// user). Tokens are signed with the development secret of DATA_DIR (or
// AUTH_DEV_SECRET), and payments confirmed with the processor simulator
// that `make run` started with the same DATA_DIR.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"marketplace/deploy/system"
	"marketplace/libs/program"
)

func main() { program.Main("seed", run) }

func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := configure(os.Args[1:], getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	cfg.Stdout, cfg.Stderr = stdout, os.Stderr
	_, err = Seed(ctx, cfg)
	return err
}

// configure reads the flags, defaulting to the environment, and the
// development secret and processor simulator of the all-in-one.
func configure(args []string, getenv func(string) string, usage io.Writer) (Config, error) {
	var errs []error
	num := func(name string, def float64) float64 {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return def
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			errs = append(errs, fmt.Errorf("%s=%q must be a non-negative number", name, v))
			return def
		}
		return f
	}
	intOr := func(name string, def int) int {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q must be a whole number, 0 or more", name, v))
			return def
		}
		return n
	}
	seedVal := uint64(1)
	if v := strings.TrimSpace(getenv("SEED")); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("SEED=%q must be a whole number", v))
		}
		seedVal = n
	}
	scale := num("SEED_SCALE", 1)
	force := false
	if v := strings.TrimSpace(getenv("SEED_FORCE")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("SEED_FORCE=%q must be 1 or 0", v))
		}
		force = b
	}
	url := getenv("SEED_URL")
	if url == "" {
		url = DefaultURL
	}
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(usage)
	seed := fs.Uint64("seed", seedVal, "the random seed: the same seed makes the same content (SEED)")
	scaleF := fs.Float64("scale", scale, "multiplies the full sizes: 30 stores, 200 customers, 1,000 orders, 2,000 reviews, 18 payouts (SEED_SCALE)")
	stores := fs.Int("stores", -1, "stores (SEED_STORES; default from -scale)")
	customers := fs.Int("customers", -1, "customers (SEED_CUSTOMERS)")
	orders := fs.Int("orders", -1, "orders (SEED_ORDERS)")
	reviews := fs.Int("reviews", -1, "reviews (SEED_REVIEWS)")
	payouts := fs.Int("payouts", -1, "payouts, at least one in each of the 6 states when 6 or more (SEED_PAYOUTS)")
	workers := fs.Int("workers", intOr("SEED_WORKERS", DefaultWorkers), "calls in flight at once (SEED_WORKERS)")
	baseURL := fs.String("url", url, "the gateway of the running system (SEED_URL)")
	forceF := fs.Bool("force", force, "seed a system that holds other data: adds the demo data to it (SEED_FORCE=1)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	sizes := Scaled(*scaleF)
	for _, f := range []struct {
		flag *int
		env  string
		dst  *int
	}{{stores, "SEED_STORES", &sizes.Stores}, {customers, "SEED_CUSTOMERS", &sizes.Customers}, {orders, "SEED_ORDERS", &sizes.Orders},
		{reviews, "SEED_REVIEWS", &sizes.Reviews}, {payouts, "SEED_PAYOUTS", &sizes.Payouts}} {
		*f.dst = intOr(f.env, *f.dst)
		if *f.flag >= 0 {
			*f.dst = *f.flag
		}
	}
	cfg := Config{BaseURL: *baseURL, Seed: *seed, Sizes: sizes, Workers: max(1, *workers), RPS: num("SEED_RPS", DefaultRPS),
		Burst: DefaultBurst, WebhookRPS: DefaultWebhookRPS, Force: *forceF}
	if cfg.RPS == 0 {
		errs = append(errs, errors.New("SEED_RPS must be above 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	if err := sizes.check(); err != nil {
		return Config{}, err
	}
	pc, err := program.Load(getenv)
	if err != nil {
		return Config{}, err
	}
	if pc.JWKSURL != "" {
		return Config{}, errors.New("AUTH_JWKS_URL is set: the seed signs in its users with development tokens, which only a system without an identity provider accepts")
	}
	cfg.AuthOptions = pc.AuthOptions()
	if cfg.DevSecret, err = system.DevSecret(getenv); err != nil {
		return Config{}, err
	}
	if cfg.SimulatorURL, _, err = system.Simulator(getenv); err != nil {
		return Config{}, fmt.Errorf("orders are paid with the processor simulator of `make run`: %w", err)
	}
	return cfg, nil
}
