# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local
# stripe-go v86.2.0 is not in the public checksum database; its hash is pinned in go.sum.
export GONOSUMDB := github.com/stripe/stripe-go

# Every module of the workspace, as package patterns.
PKGS = $(shell $(GO) list -m -f '{{.Dir}}/...')
GOFMT ?= $(shell $(GO) env GOROOT)/bin/gofmt
MODDIRS = $(shell $(GO) list -m -f '{{.Dir}}')
BIN := bin/marketplace

.PHONY: help run run-distributed test vet test-history test-money-per-write test-mixed-versions build contracts-check contracts-accept workflows-check client console token sign-webhook pay dispute seed bench bench-engine bench-live fuzz fmt shape hooks
.DEFAULT_GOAL := help

## help: this list (each target's `##` comment)
help:
	@awk '/^## [a-z-]+:/ { sub(/^## /, ""); n = index($$0, ":"); printf "  make %-20s %s\n", substr($$0, 1, n - 1), substr($$0, n + 2) }' $(MAKEFILE_LIST)

## run: the whole system in one process on embedded engines (data in DATA_DIR, default ./data)
run: build
	./$(BIN) run

## build: the all-in-one binary (bin/marketplace)
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./deploy/cmd/marketplace

# The files bin/marketplace is built from: the Go and embedded files and
# go.mod/go.sum of the workspace's packages it imports, and go.work. The tools
# below (token, console, sign-webhook, pay) depend on it, so a second `make
# token` runs the binary without a go build. A file added or removed changes
# the list, not a timestamp: the list is kept beside the binary ($(BIN).srcs),
# rewritten only when it changes, and the binary depends on it too. (Not on
# the folders' timestamps: npm's node_modules in web/console, made while the
# binary is up to date, would rebuild it.) Listed (go list) only when one of
# those targets is asked for; `make build` always asks go build.
MARKETPLACE_TOOLS = token console sign-webhook pay
ifneq ($(filter $(MARKETPLACE_TOOLS) $(BIN),$(MAKECMDGOALS)),)
MARKETPLACE_SRCS := $(wildcard go.work go.work.sum $(shell $(GO) list -deps -f '{{if and .Module .Module.Main}}{{range .GoFiles}}{{$$.Dir}}/{{.}} {{end}}{{range .EmbedFiles}}{{$$.Dir}}/{{.}} {{end}}{{.Module.GoMod}} {{.Module.Dir}}/go.sum{{end}}' ./deploy/cmd/marketplace))
MARKETPLACE_LIST := $(BIN).srcs
$(shell mkdir -p $(dir $(BIN)))
$(file >$(MARKETPLACE_LIST).new,$(sort $(MARKETPLACE_SRCS)))
$(shell cmp -s $(MARKETPLACE_LIST).new $(MARKETPLACE_LIST) && rm $(MARKETPLACE_LIST).new || mv $(MARKETPLACE_LIST).new $(MARKETPLACE_LIST))
endif
# Silent, as the tools' own lines: TOKEN=$$(make token) is the token alone,
# also on the call that builds.
$(BIN): $(MARKETPLACE_SRCS) $(MARKETPLACE_LIST)
	@$(GO) build -buildvcs=auto -o $(BIN) ./deploy/cmd/marketplace
	@touch $(BIN)

# The programs of the distributed mode: the marketplace binary (its broker and
# launcher), the gateway and one binary per service. -buildvcs=auto stamps the
# commit into the programs (GET /version, their start lines) even where GOFLAGS
# turns it off; outside a git checkout they say commit "unknown".
DIST_PKGS = ./deploy/cmd/marketplace ./deploy/cmd/gateway $(addprefix ./,$(wildcard services/*/cmd/*))

## run-distributed: the broker, every service and the gateway as separate processes of their own binaries (bin/), each service on its own embedded database file (DB_EMBEDDED=true, as no MongoDB is assumed; set MONGODB_URI to use one)
run-distributed:
	$(GO) build -buildvcs=auto -o bin/ $(DIST_PKGS)
	DB_EMBEDDED=$${DB_EMBEDDED:-true} ./$(BIN) run-distributed -bin bin

# deploy/e2e's browser journeys (Chromium driven by node --test on the
# console's e2e/*.test.mjs, each against a system of its own): make test runs
# them in a go test of their own, after every other test, two at a time
# (t.Parallel) and without the race detector, which stays on every other test,
# those that call the same server code over the API (ADR 0176;
# TestBrowserJourneysAreSplitOff keeps this pattern to the tests that drive
# Chromium).
BROWSER_JOURNEYS := InBrowser$$

## test: every module's tests (unit, fuzz seed corpora, black-box through the gateway), after the published contracts' check (contracts-check) and the CI workflows' (actionlint)
test:
	@bash .ci/check-large-files
	@unformatted="$$($(GOFMT) -l $(MODDIRS) tools/actionlint tools/shape)"; if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi
	@$(MAKE) --no-print-directory vet
	@$(MAKE) --no-print-directory contracts-check
	@$(MAKE) --no-print-directory workflows-check
	cd tools/shape && GOWORK=off $(GO) test -count=1 ./...
	$(GO) test -race -count=1 -timeout 45m -skip '$(BROWSER_JOURNEYS)' $(PKGS)
	$(GO) test -count=1 -timeout 45m -parallel 2 -run '$(BROWSER_JOURNEYS)' ./deploy/e2e

## vet: go vet over every module of the workspace (`go vet ./...` at the root does not work here: the root is not a module, go.work lists the modules); make test runs it first
vet:
	$(GO) vet $(PKGS)

## test-history: the long wallet history check: 12 clients, 20,000 wallet operations on three stores while the all-in-one is killed (SIGKILL) 6 times, checked for linearizability with porcupine (make test runs a short one; docs/adr/0152-wallet-history-check.md)
test-history:
	HISTORY=long $(GO) test -count=1 -timeout 60m -run '^TestWalletHistoryIsLinearizable$$' -v ./deploy/cmd/marketplace

## test-money-per-write: the platform's money property test again with the embedded engine recording writes one by one, as on MongoDB (-tags faultpoints, MARKETPLACE_FAULT_PER_WRITE=1; make test runs it with the engine's changes; MONEY_STEPS, MONEY_SEED; docs/adr/0151-platform-reconciliation.md)
test-money-per-write:
	MARKETPLACE_FAULT_PER_WRITE=1 $(GO) test -tags faultpoints -count=1 -timeout 20m -run '^TestPlatformBalancesAfterRandomMoneyHistories$$' -v ./deploy/e2e

## hooks: turn on the repository's git hooks in this clone (.githooks/commit-msg: commit subjects at most 72 characters, docs/adr/0001)
hooks:
	git config core.hooksPath .githooks

## shape: how far the services are from domain / storage / operations (BSON literals and collection calls outside the repositories, clock reads) and the size of libs/ and libs/store, in lines (docs/adr)
shape:
	@cd tools/shape && GOWORK=off $(GO) run . -root $(CURDIR)

## test-mixed-versions: the distributed mode with one service (customers, payouts, reviews, notifications in turn) at another version than the rest, both ways round, the journey passing each time: contracts/ACCEPTED's commit (or MIXED_OLD_COMMIT) against the current code, the current code against its next version (-tags nextversion); MIXED_RUN=<pattern> for some cases
test-mixed-versions:
	@GO=$(GO) bash deploy/distributed/mixed-versions.sh

## contracts-check: regenerate the published contracts (public and internal operations, event payloads) and fail on a breaking change against the snapshot in contracts/ (oasdiff; CHANGELOG.md)
contracts-check: bin/oasdiff
	@GO=$(GO) OASDIFF=$(CURDIR)/bin/oasdiff bash tools/oasdiff/contracts.sh check

## contracts-accept: make the regenerated contracts the snapshot in contracts/ (each changed contract needs a `## <contract> <version>` entry in CHANGELOG.md; writes contracts/ACCEPTED)
contracts-accept: bin/oasdiff
	@GO=$(GO) OASDIFF=$(CURDIR)/bin/oasdiff bash tools/oasdiff/contracts.sh accept

## workflows-check: the hosting CI's workflow files (.github/workflows) checked by actionlint's library, offline (tools/actionlint; shellcheck and pyflakes add their checks where installed)
workflows-check:
	cd tools/actionlint && GOWORK=off $(GO) test -count=1 ./...

# oasdiff from its own module (tools/oasdiff), kept out of go.work.
bin/oasdiff: tools/oasdiff/go.mod tools/oasdiff/go.sum
	cd tools/oasdiff && GOWORK=off $(GO) build -o $(CURDIR)/bin/oasdiff github.com/oasdiff/oasdiff

## client: the TypeScript client as an npm package, bin/marketplace-api.tgz, at the public contract's version (clients/typescript/README.md)
client:
	@bash clients/typescript/pack.sh

## console: sign-in links to the admin console (/admin/) and the store portal (/store/) of the running `make run`: development tokens valid 1 h in the links' fragments (OWNER=<user id>: that store owner; default the first store's)
console: $(BIN)
	@$(BIN) console -owner "$(OWNER)"

## token: a development token, e.g. make token SUB=user-1 ROLES=admin (NAME='Mariam Al Mansoori': the name claim)
token: $(BIN)
	@$(if $(strip $(SUB)),,echo 'make token: name the user: make token SUB=<user id> [ROLES=admin]' >&2; exit 2;) $(BIN) token -sub "$(SUB)" -roles "$(ROLES)" -name "$(NAME)"

## sign-webhook: the processor-signature header for a body file, e.g. make sign-webhook FILE=body.json
sign-webhook: $(BIN)
	@$(BIN) sign-webhook -file "$(FILE)"

## pay: pay a payment intent with the processor simulator of `make run` or `make run-distributed` (the one holding it), which sends the webhook, e.g. make pay INTENT=pi_... [OUTCOME=failed|canceled] [SIMULATOR=http://127.0.0.1:8081]
pay: $(BIN)
	@$(BIN) pay -intent "$(INTENT)" -outcome "$(or $(OUTCOME),succeeded)" -simulator "$(SIMULATOR)"

## dispute: open a dispute on a paid intent at the processor simulator, or close one, e.g. make dispute INTENT=pi_... [AMOUNT=10.50] [REASON=product_not_received], make dispute CLOSE=dp_... OUTCOME=won|lost
dispute: $(BIN)
	@$(BIN) dispute -intent "$(INTENT)" -amount "$(AMOUNT)" -reason "$(REASON)" -close "$(CLOSE)" -outcome "$(OUTCOME)" -simulator "$(SIMULATOR)"

## seed: fill the running `make run` with demo data through its API, with a progress bar per phase (SEED=1 SEED_SCALE=1: 30 stores, 200 customers, 1,000 orders, 2,000 reviews, 18 payouts; README "Demo data")
seed:
	@$(GO) build -o bin/seed ./deploy/cmd/seed && ./bin/seed $(SEEDFLAGS)

## bench: throughput and latency side by side (gateway, direct, nginx if installed, operations)
bench:
	$(GO) run ./deploy/cmd/bench $(BENCHFLAGS)

## bench-engine: the embedded engine's growth, side by side in one run (votes at 2,000 and 20,000 reviews, orders at 1,000 and 100,000, wallets 1 and 50, restart, memory per stored byte); BENCH_ENGINE_QUICK=1: 10,000 orders; BENCHFLAGS=-growth-seed also times make seed
bench-engine:
	$(GO) run ./deploy/cmd/bench -engine-growth $(BENCHFLAGS)

## bench-live: what a write costs with live queries (issue 23): voteOnReview with none, with 10,000 that did not read it, with 1,000 subscriptions that did (10 shared and 1,000 distinct live queries); ends with `live write cost: 10000 unrelated / none R`
bench-live:
	$(GO) run ./deploy/cmd/bench -live-cost $(BENCHFLAGS)

## fuzz: run the argument decoder fuzzers for a while (the seed corpora run in `make test`)
fuzz:
	$(GO) test ./libs/ops -run '^$$' -fuzz FuzzDecode -fuzztime 60s
	$(GO) test ./libs/ops -run '^$$' -fuzz FuzzServiceEndpoint -fuzztime 60s

## fmt: gofmt every Go file
fmt:
	gofmt -w $$(git ls-files '*.go')
