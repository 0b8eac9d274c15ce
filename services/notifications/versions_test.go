package notifications

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	contractevents "marketplace/libs/contracts/events"
	"marketplace/services/notifications/domain"
)

// anyEventData fills the fields the mapped events require, whatever their type.
const anyEventData = `{"orderId":"ord_1","to":"delivered","from":"pending","customerUserId":"u_c","storeOwnerUserId":"u_o",
	"storeId":"sto_1","storeName":"Falafel House","paymentIntentId":"pi_1","flagId":"flg_1","reviewId":"rev_1","payoutId":"pay_1",
	"walletId":"wal_1","ownerUserId":"u_o","comment":"Thanks","refundId":"rfd_1","disputeId":"dp_1"`

// The consumer declares exactly the event types it maps (a type mapped but
// not declared would be acknowledged without a notification), each in the
// version it reads.
func TestHandlesEveryMappedType(t *testing.T) {
	for _, e := range contractevents.All {
		if !slices.Contains(Topics, e.Topic) {
			continue
		}
		_, err := notificationsFor(envelope(e.Type, anyEventData+"}"))
		mapped := !errors.Is(err, domain.ErrNotHandled)
		if vs, declared := handles[e.Type]; mapped != declared || declared && !slices.Equal(vs, []int{1}) {
			t.Errorf("%s: mapped %v, declared %v %v", e.Type, mapped, declared, vs)
		}
	}
	for typ := range handles {
		if _, err := notificationsFor(envelope(typ, anyEventData+"}")); errors.Is(err, domain.ErrNotHandled) {
			t.Errorf("%s is declared and not mapped", typ)
		}
	}
}

// Fields a producer adds to a payload (a compatible change, as the next
// release's build does) change nothing: every mapped type gives the same
// notifications with them as without.
func TestAddedPayloadFieldsAreIgnored(t *testing.T) {
	const added = `,"addedInANextVersion":"x","addedObject":{"nested":[1,2,{"deep":true}]},"addedNumber":12.5}`
	for typ := range handles {
		plain, err := notificationsFor(envelope(typ, anyEventData+"}"))
		if err != nil || len(plain) == 0 {
			t.Fatalf("%s: %d notifications, %v", typ, len(plain), err)
		}
		more, err := notificationsFor(envelope(typ, anyEventData+added))
		if err != nil {
			t.Errorf("%s with added fields: %v", typ, err)
			continue
		}
		if !reflect.DeepEqual(plain, more) {
			t.Errorf("%s: added fields changed the notifications:\n%+v\n%+v", typ, plain, more)
		}
	}
}
