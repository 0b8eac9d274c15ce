package apischema

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/ops"
)

// The published contracts (contracts/ at the repository's root, checked by
// `make contracts-check` with oasdiff): the public operations are the
// OpenAPI document itself; the internal operations and the event payloads
// are OpenAPI documents of their own, so that the same tool judges them with
// the right side's rules. An internal operation is a POST whose request body
// is its arguments (provider-side rules: a removed or renamed argument, a
// new required one, a narrowed type break its callers) and whose 200 answer
// is its return value (consumer-side rules: a removed field breaks them). An
// event type's major version is the 200 answer of a pseudo-path
// GET /events/<type>[/v<major>]: a consumer reads it as it reads an answer,
// so a removed or renamed field, a narrowed type or a new enum value it does
// not know are breaks and an added field is not.

// ContractVersion is the contract documents' info.version; the version each
// contract is accepted at is in contracts/ACCEPTED (CHANGELOG.md says why).
const ContractVersion = Version

// InternalPath is an internal operation's pseudo-path in the internal
// contract. On the wire it is POST /api/query or /api/mutation on the
// callee's own address with {"path": ..., "args": ...}.
func InternalPath(path string) string { return "/internal/" + path }

// EventVersionPath is the pseudo-path of a major version of an event type's
// payload: /events/<type> for version 1 (the path it had before versions,
// kept so the snapshot judges it as before), /events/<type>/v<major> for the
// others. A new major version is thus a new path beside the old one, and the
// old one's removal, at the end of its deprecation window, a breaking change
// the check refuses until it is accepted as one.
func EventVersionPath(typ string, version int) string {
	if version == 1 {
		return "/events/" + typ
	}
	return "/events/" + typ + "/v" + strconv.Itoa(version)
}

// InternalOpenAPI renders the internal operations (those New left out of the
// public surface) as an OpenAPI 3.1 document of their own.
func (a *API) InternalOpenAPI() ([]byte, error) {
	schemas := obj{}
	paths := obj{}
	for _, o := range a.internal {
		schemas[o.Path+".Args"] = argsOrEmpty(o.ArgsSchema)
		schemas[o.Path+".Returns"] = returnsOrAny(o.Returns)
		callers := append([]string{}, o.Callers...) // [] when no service may call it
		paths[InternalPath(o.Path)] = obj{"post": obj{
			"operationId": o.Path,
			"summary":     o.Summary,
			"description": "Internal " + string(o.Kind) + " of the " + o.Service + " service, called by other services as POST /api/" + string(o.Kind) + " on its address with {\"path\": \"" + o.Path + "\", \"args\": <the request body here>} and the service credential; the answer is the value itself, a failure the contract's error body. " + callersSentence(callers),
			"tags":        []string{o.Service},
			"x-marketplace": obj{
				"path": o.Path, "kind": o.Kind, "service": o.Service, "endpoint": "/api/" + string(o.Kind), "callers": callers,
			},
			"requestBody": obj{"required": true, "content": obj{mimeJSON: obj{"schema": ref(o.Path + ".Args")}}},
			"responses": obj{
				"200": obj{"description": "the return value", "content": obj{mimeJSON: obj{"schema": ref(o.Path + ".Returns")}}},
			},
		}}
	}
	return contractDocument("Marketplace internal operations",
		"The operations services call on each other (access internal: refused to outside callers), generated from the services' declarations (GET /ops). Each is described on a pseudo-path /internal/<operation path> so that a breaking-change tool can judge it: the request body is the arguments object, the 200 answer the return value.",
		a.tags(a.internal), paths, schemas)
}

// callersSentence says which services may call an internal operation
// (x-marketplace.callers): any other service's call is refused as an
// outsider's.
func callersSentence(callers []string) string {
	if len(callers) == 0 {
		return "No service may call it (refused as an unknown operation)."
	}
	return "Only " + strings.Join(callers, ", ") + " may call it; any other service is refused as an unknown operation."
}

// EventsOpenAPI renders the event payloads as an OpenAPI 3.1 document: each
// major version of an event type is the 200 answer of
// GET EventVersionPath(type, version), its schema the payload's as
// encoding/json writes it (fields without omitempty required), with the
// dataschema its envelopes carry; an older version still published is
// marked deprecated, with the end of its window.
func EventsOpenAPI(list []contractevents.Event) ([]byte, error) {
	schemas := obj{}
	paths := obj{}
	producers := map[string]bool{}
	for _, e := range list {
		producers[e.Producer] = true
		current := contractevents.EventVersion{Version: e.Version, Payload: e.Payload}
		for i, v := range append([]contractevents.EventVersion{current}, e.Older...) {
			name := v.Payload.String() // e.g. payouts.PayoutEvent
			schemas[name] = ops.ResultSchemaOf(v.Payload)
			dataschema := events.DataSchemaOf(e.Type, v.Version)
			opID := "event." + e.Type
			if v.Version != 1 {
				opID += ".v" + strconv.Itoa(v.Version)
			}
			ext := obj{"type": e.Type, "topic": e.Topic, "producer": e.Producer, "payload": name,
				"version": v.Version, "dataschema": dataschema}
			get := obj{
				"operationId": opID,
				"summary":     "The data of a " + e.Type + " event, version " + strconv.Itoa(v.Version),
				"description": "Published by the " + e.Producer + " service on topic " + e.Topic + " as a CloudEvents envelope whose type is " + e.Type +
					", whose dataschema is " + dataschema + " (an envelope without dataschema is version 1) and whose data is this object. The path is a pseudo-path: consumers read the payload as a client reads an answer.",
				"tags":          []string{e.Producer},
				"x-marketplace": ext,
				"responses": obj{
					"200": obj{"description": "the event's data", "content": obj{mimeJSON: obj{"schema": ref(name)}}},
				},
			}
			if i > 0 {
				get["deprecated"] = true
				ext["until"] = v.Until
				get["description"] = get["description"].(string) + " Deprecated: published beside version " + strconv.Itoa(e.Version) + " until " + v.Until + " at least, then removed once no consumer reads it."
			}
			paths[EventVersionPath(e.Type, v.Version)] = obj{"get": get}
		}
	}
	var tags []obj
	for p := range producers {
		tags = append(tags, obj{"name": p, "description": "Events the " + p + " service publishes."})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i]["name"].(string) < tags[j]["name"].(string) })
	return contractDocument("Marketplace events",
		"The payloads of the events services publish on the broker, generated from the contract types in libs/contracts (libs/contracts/events lists them). Each major version of an event type's payload is described as the 200 answer of a pseudo-path, GET /events/<type> for version 1 and GET /events/<type>/v<major> for later ones, so that a breaking-change tool judges it with the consumer's rules. Envelopes name the version of their data in their dataschema, urn:marketplace:event:<type>:v<major>.",
		tags, paths, schemas)
}

func argsOrEmpty(s *ops.Schema) any {
	if s == nil {
		return obj{"type": "object"}
	}
	return s
}

func (a *API) tags(list []Operation) []obj {
	services := map[string]bool{}
	for _, o := range list {
		services[o.Service] = true
	}
	var tags []obj
	for s := range services {
		tags = append(tags, obj{"name": s, "description": "Internal operations of the " + s + " service."})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i]["name"].(string) < tags[j]["name"].(string) })
	return tags
}

func contractDocument(title, description string, tags []obj, paths, schemas obj) ([]byte, error) {
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       title,
			"version":     ContractVersion,
			"description": description + " The version each contract is accepted at is in contracts/ACCEPTED, and CHANGELOG.md says what each version changed.",
		},
		"tags":       tags,
		"paths":      paths,
		"components": obj{"schemas": schemas},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
