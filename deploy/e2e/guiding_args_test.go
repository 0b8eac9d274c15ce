package e2e

import (
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestUnknownArgumentSuggestsTheDeclaredOne: cityId for an address's city
// is refused naming city, in the message and in details.suggestions; an
// argument near no declared one gets no suggestion.
func TestUnknownArgumentSuggestsTheDeclaredOne(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	token, customer := newCustomer(t, s, "user-args")
	args := p.addrArgs(customer, "Home")
	delete(args, "city")
	args["cityId"] = p.dubai.ID
	expectDetails(t, s.Mutation(token, opCreateAddress, args), "INVALID_ARGUMENT",
		map[string]any{"field": "cityId", "reason": "unknown_argument", "suggestions": []string{"city"}},
		"cityId: unknown argument; did you mean city?")
	args = p.addrArgs(customer, "Home")
	args["colour"] = "blue"
	d := expectDetails(t, s.Mutation(token, opCreateAddress, args), "INVALID_ARGUMENT",
		map[string]any{"field": "colour", "reason": "unknown_argument"}, "colour: unknown argument")
	if _, ok := d["suggestions"]; ok {
		t.Errorf("suggestions for colour: %v", d)
	}
}

// TestCoordinateAsNumberShowsTheString: an address's latitude given as a
// number is refused showing it as the string to send; a string that is not
// a coordinate shows an example.
func TestCoordinateAsNumberShowsTheString(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	token, customer := newCustomer(t, s, "user-coords")
	args := p.addrArgs(customer, "Home")
	args["latitude"] = 25.2048
	expectDetails(t, s.Mutation(token, opCreateAddress, args), "INVALID_ARGUMENT",
		map[string]any{"field": "latitude"}, `latitude: must be a string such as "25.2048", not a number`)
	args["latitude"], args["longitude"] = "25.2048", "east"
	expectDetails(t, s.Mutation(token, opCreateAddress, args), "INVALID_ARGUMENT",
		map[string]any{"field": "longitude"}, `longitude: must be a decimal number of degrees in a string, such as "55.2708"`)
	args["longitude"] = "55.2708"
	createAddr(t, s, token, args)
}
