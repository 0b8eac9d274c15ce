// Package contracts is the home of what crosses a bounded context's border:
// one package per producing or serving context (contracts/catalog,
// contracts/customers, ...) holds its event topics, event type names and
// payload structs, the shapes of the operations other services call, and a
// typed client for those operations. The producer and every consumer import
// the same declarations, so no service re-declares another's payload.
//
// Money in event payloads is integer fils (fields named ...Fils); money in
// operation results follows the interface (AED numbers).
package contracts
