// Package notifications keeps users' and administrators' inboxes, written from
// the platform's events.
//
// # Where notifications come from
//
// One consumer (group "notifications") follows the topics "orders", "payments"
// and "reviews". Each event is handled in the consumer's transaction together
// with the record that it was processed, so an event produces its notifications
// exactly once: a redelivered event is dropped by the consumer's dedupe, and
// should that record be gone (pruned after its retention), the handler finds the
// notification already stored (unique index on eventId, recipientType,
// recipientUserId and type) and writes nothing. Event types not listed below
// are ignored. An event of a listed type whose data cannot be read (not a JSON
// object, a field of the wrong type, a missing id) fails: the consumer retries
// it and then moves it to "<topic>.dlq".
//
//	event (topic)                 recipient                           type            priority
//	order.created (orders)        customer (data.customerUserId)      order_created   normal
//	order.created (orders)        store owner (data.storeOwnerUserId) new_order       normal
//	order.created, held (orders)  customer (data.customerUserId)      order_payment_review normal
//	order.created, held (orders)  the admin inbox                     payment_review  high
//	order.status_changed (orders) customer (data.customerUserId)      order_status    normal
//	order.status_changed pending  store owner (data.storeOwnerUserId) new_order       normal
//	  -> confirmed (orders)
//	payment.failed (payments)     customer (data.customerUserId)      payment_failed  high
//	review.flag_raised (reviews)  the admin inbox                     review_flagged  high for reason offensive
//	                                                                                  or fake, else normal
//
// A held order is one whose payment did not match its total (data.paymentStatus
// "under_review"): the customer and the administrators are told, the store is
// not; it hears of the order when an administrator confirms it (pending ->
// confirmed, which only a held order goes through).
//
// Titles: order_created "Order confirmed", new_order "New order", order_status
// "Order <status label>" (e.g. "Order out for delivery"), payment_failed
// "Payment failed", review_flagged "Review flagged", order_payment_review "Order
// received: payment under review", payment_review "Payment does not match its order".
//
// A recipient whose user id is empty in the event is skipped (no notification,
// no error). When the customer is also the store's owner, order.created gives
// them both notifications.
//
// Event data read (the producers' contracts in libs/contracts; other fields are
// ignored; money in integer fils):
//
//	order.created         orderId (required), customerId, customerUserId, storeId, storeName,
//	                      storeOwnerUserId, totalFils, subtotalFils, deliveryFeeFils, paymentIntentId, status,
//	                      paymentStatus, amountPaidFils and currency (held orders)
//	order.status_changed  orderId (required), to (required), from, customerId, customerUserId,
//	                      storeId, storeName, storeOwnerUserId, changedBy
//	payment.failed        paymentIntentId (required), customerId, customerUserId, storeId,
//	                      amountFils, currency (default "AED"), failureMessage
//	review.flag_raised    flagId (required), reviewId (required), storeId, reason, description,
//	                      flaggedByUserId
//
// Bodies (store names, failure messages and flag descriptions are cut to a few
// hundred characters):
//
//	order_created   "Your order from <storeName> for AED <total> is confirmed."
//	new_order       "New order for AED <total> at <storeName>."  ("New order at <storeName>." when
//	                a held order is confirmed)
//	order_payment_review  "We received your payment of <CUR> <amountPaid> for your order from
//	                <storeName>, which does not match its total of AED <total>. Our team is
//	                reviewing it and will contact you."
//	payment_review  "Order at <storeName> was paid <CUR> <amountPaid> for a total of AED <total>:
//	                confirm or cancel it."
//	order_status    "Your order from <storeName> is now <status label>."  labels: pending, confirmed,
//	                being prepared, out for delivery, delivered, cancelled (another status: its name
//	                with spaces for underscores)
//	payment_failed  "Your payment of AED <amount> could not be completed: <failureMessage>. Your cart
//	                was kept, so you can try again."  (without ": <failureMessage>" when there is none)
//	review_flagged  "A review was flagged as <reason>: <description>"  (" as <reason>" and
//	                ": <description>" left out when the event has none)
//
// data (string values; a key is left out when the event has no value for it):
//
//	order_created, new_order, order_payment_review, payment_review  orderId, storeId, paymentIntentId
//	                          (new_order on confirmation: orderId, storeId)
//	order_status              orderId, storeId, status (the new status), previousStatus
//	payment_failed            paymentIntentId, storeId
//	review_flagged            flagId, reviewId, storeId, reason, flaggedByUserId
//
// # Stored record (collection "notifications")
//
//	_id              Id<'notifications'> ("ntf_...")
//	recipientType    "user" | "admin"
//	recipientUserId  the recipient's user id (the token's sub); absent for the admin inbox
//	type, title, body, priority ("normal" | "high"), data (as above)
//	eventId          the envelope id; eventType the envelope type
//	eventTime        the envelope time, epoch ms (the time it was stored when the envelope has none)
//	read             bool; readAt epoch ms, once read
//	creationTime     epoch ms
//
// # Operations
//
// notifications.inbox.list (query, any signed-in caller): args { paginationOpts, unreadOnly? }.
// A page ({ page, isDone, continueCursor }) of the caller's notifications, newest
// first; an administrator's page also holds the admin inbox, which all
// administrators share (one read state for all of them). Items:
//
//	{ _id, _creationTime, recipientType, type, title, body, priority, data, read, readAt?, eventTime }
//
// notifications.inbox.markRead (mutation, any signed-in caller): args { notificationId }.
// Marks one notification read and returns null. NOT_FOUND when it does not exist,
// PERMISSION_DENIED when it is another user's, or an admin-inbox item and the
// caller is not an administrator. Marking a read notification again succeeds and
// keeps its first readAt.
package notifications
