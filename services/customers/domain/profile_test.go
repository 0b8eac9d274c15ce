package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func ptr(s string) *string { return &s }

func TestNewProfileEdit(t *testing.T) {
	e, err := NewProfileEdit("  Mona ", ptr(" +971 50 "), ptr(" mona@example.com "))
	if err != nil || e.Name != "Mona" || *e.Phone != "+971 50" || *e.Email != "mona@example.com" {
		t.Fatalf("trimmed edit: %+v, %v", e, err)
	}
	if e, err := NewProfileEdit("Mona", nil, nil); err != nil || e.Phone != nil || e.Email != nil {
		t.Fatalf("no phone, no email: %+v, %v", e, err)
	}
	for _, bad := range []string{"mona", "Mona <mona@example.com>", "a@b.c, d@e.f", "@example.com"} {
		if _, err := NewProfileEdit("Mona", nil, ptr(bad)); !apperr.Is(err, apperr.InvalidArgument) || apperr.From(err).Details["field"] != "email" {
			t.Errorf("email %q: %v, want INVALID_ARGUMENT naming email", bad, err)
		}
	}
}

func TestDeliveryPhone(t *testing.T) {
	for _, c := range []struct {
		phone *string
		want  string
	}{{nil, ""}, {ptr("   "), ""}, {ptr(" 050 "), "050"}} {
		if got := (&Profile{Phone: c.phone}).DeliveryPhone(); got != c.want {
			t.Errorf("DeliveryPhone(%v) = %q, want %q", c.phone, got, c.want)
		}
	}
}
