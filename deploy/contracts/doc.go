// Package contracts holds the tests of the published contracts' check
// (make contracts-check, tools/oasdiff/contracts.sh): that it refuses the
// breaking changes of docs/adr/0083-published-contracts.md and lets
// changes old peers can ignore pass.
package contracts
