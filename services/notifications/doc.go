// Package notifications keeps users' and administrators' inboxes, written from
// the platform's events.
//
// # Where notifications come from
//
// One consumer (group "notifications") follows the topics "orders", "payments",
// "reviews", "payouts" and "wallets". Each event is handled in the consumer's transaction together
// with the record that it was processed, so an event produces its notifications
// exactly once: a redelivered event is dropped by the consumer's dedupe, and
// should that record be gone (pruned after its retention), the handler finds the
// notification already stored (unique index on eventId, recipientType,
// recipientUserId and type) and writes nothing. Event types not listed below
// are ignored. An event of a listed type whose data cannot be read (not a JSON
// object, a field of the wrong type, a missing id) fails: the consumer retries
// it and then parks it in its group's dead-letter topic, "dlq.notifications".
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
//	order.status_changed to       customer (data.customerUserId)      review_invitation normal
//	  delivered (orders)          (besides order_status)
//	review.store_responded        the review's author                 review_response normal
//	  (reviews)                   (data.customerUserId)
//	review.hidden (reviews)       the review's author                 review_hidden   normal
//	review.shown (reviews)        the review's author                 review_shown    normal
//	payout.requested (payouts)    the admin inbox                     payout_requested normal
//	payout.approved (payouts)     store owner (data.storeOwnerUserId) payout_approved normal
//	payout.rejected (payouts)     store owner (data.storeOwnerUserId) payout_rejected high
//	payout.processing (payouts)   store owner (data.storeOwnerUserId) payout_processing normal
//	payout.completed (payouts)    store owner (data.storeOwnerUserId) payout_completed normal
//	payout.failed (payouts)       store owner (data.storeOwnerUserId) payout_failed   high
//	payout.cancelled (payouts)    the admin inbox, and the former     payout_cancelled high
//	                              owner (data.storeOwnerUserId)
//	wallet.adjusted (wallets)     store owner (data.storeOwnerUserId) wallet_adjusted normal
//
// The other review events (review.created, updated, deleted, flag_resolved)
// notify nobody: the author made the change, or the decision on a flag is the
// moderators' business (the author hears of a hide through review.hidden).
//
// wallet.credited and wallet.released (an order's earnings entering the
// pending balance, held earnings becoming available) notify nobody: a store
// hears of each order already, and its wallet shows the balances.
//
// A held order is one whose payment did not match its total (data.paymentStatus
// "under_review"): the customer and the administrators are told, the store is
// not; it hears of the order when an administrator confirms it (pending ->
// confirmed, which only a held order goes through). A held order with
// data.reviewReason "cart_empty" (the payment found no items of the store in
// the cart) gets its own titles and bodies (below): it holds nothing, and an
// administrator can only cancel it.
//
// Titles: order_created "Order confirmed", new_order "New order", order_status
// "Order <status label>" (e.g. "Order out for delivery"), payment_failed
// "Payment failed", review_flagged "Review flagged", order_payment_review "Order
// received: payment under review" ("Payment received: nothing to order" for
// cart_empty), payment_review "Payment does not match its order" ("Payment
// without items" for cart_empty),
// review_invitation "How was <storeName>?", review_response "<storeName> responded
// to your review" ("<storeName> updated its response to your review" for a
// change), review_hidden "Your review was hidden", review_shown "Your review is
// visible again",
// payout_requested "Payout requested", payout_approved "Payout approved",
// payout_rejected "Payout rejected", payout_processing "Payout on its way",
// payout_completed "Payout completed", payout_failed "Payout failed",
// payout_cancelled "Payout cancelled" (to the former owner) and "Payout
// cancelled: <reason>" (to the admin inbox),
// wallet_adjusted "Wallet adjusted".
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
//	                      paymentStatus, amountPaidFils, currency and reviewReason (held orders)
//	order.status_changed  orderId (required), to (required), from, customerId, customerUserId,
//	                      storeId, storeName, storeOwnerUserId, changedBy
//	payment.failed        paymentIntentId (required), customerId, customerUserId, storeId,
//	                      amountFils, currency (default "AED"), failureMessage
//	review.flag_raised    flagId (required), reviewId (required), storeId, reason, description,
//	                      flaggedByUserId
//	review.store_responded  reviewId (required), storeId, storeName, customerUserId, comment, updated
//	review.hidden, review.shown  reviewId (required), storeId, storeName, customerUserId
//	payout.*              payoutId (required), storeId, storeName, storeOwnerUserId,
//	                      requestedAmountFils, processingFeeFils, netAmountFils, status, reason
//	                      (rejection or failure), processingMethod, transactionReference,
//	                      balanceRestored
//	wallet.adjusted       walletId (required), storeId, storeName, storeOwnerUserId, adjustmentType,
//	                      amountFils, reason
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
//	order_payment_review, cart_empty  "We received your payment of <CUR> <amountPaid> at
//	                <storeName>, but your cart held no items of that store when it arrived (they
//	                may have been ordered with another payment). Our team is reviewing it and
//	                will contact you about a refund."
//	payment_review, cart_empty  "A payment of <CUR> <amountPaid> at <storeName> found no items
//	                of the store in the customer's cart (a second payment of the same cart, or
//	                a cart emptied before paying): cancel the order and refund the payment."
//	order_status    "Your order from <storeName> is now <status label>."  labels: pending, confirmed,
//	                being prepared, out for delivery, delivered, cancelled (another status: its name
//	                with spaces for underscores)
//	payment_failed  "Your payment of AED <amount> could not be completed: <failureMessage>. Your cart
//	                was kept, so you can try again."  (without ": <failureMessage>" when there is none)
//	review_flagged  "A review was flagged as <reason>: <description>"  (" as <reason>" and
//	                ": <description>" left out when the event has none)
//	review_invitation  "Your order from <storeName> was delivered. Rate the store and help other
//	                customers choose."
//	review_response "<title>: <comment>"  (the response cut to a few hundred characters)
//	review_hidden   "Your review of <storeName> was hidden by our moderators: other customers no
//	                longer see it."
//	review_shown    "Your review of <storeName> is visible to other customers again."
//	payout_requested   "<storeName> requested a payout of AED <amount> (AED <net> after the
//	                   AED <fee> fee)."
//	payout_approved    "Your payout of AED <amount> from <storeName> was approved."
//	payout_rejected    "Your payout of AED <amount> from <storeName> was rejected: <reason>. The
//	                   amount is back in your available balance."
//	payout_processing  "Your payout of AED <amount> from <storeName> is being paid by <method>."
//	                   (bank transfer, a manual payment, a payment provider)
//	payout_completed   "Your payout of AED <amount> from <storeName> was paid: AED <net> sent to
//	                   your account (reference <reference>)."  (the reference when there is one)
//	payout_failed      "Your payout of AED <amount> from <storeName> failed: <reason>." then "The
//	                   amount is back in your available balance." when it was restored, else "Our
//	                   team will contact you about the amount."
//	payout_cancelled   to the former owner: "Your payout of AED <amount> from <storeName> was
//	                   cancelled: <reason>. It will not be paid to your account; the amount went
//	                   back to the store's available balance. Contact us to settle it."; to the
//	                   admin inbox: "The payout of AED <amount> from <storeName> requested by
//	                   <requester> was cancelled (<reason>): the amount is back in the store's
//	                   available balance. Settle it with <requester>, the store's former owner."
//	                   (<requester>: the event's requestedByName, else requestedBy)
//	wallet_adjusted    "AED <amount> was added to / deducted from the available / pending balance of
//	                   <storeName>: <reason>." ("AED <amount> of the pending balance of <storeName>
//	                   is now available: <reason>." for a move)
//
// data (string values; a key is left out when the event has no value for it):
//
//	order_created, new_order, order_payment_review, payment_review  orderId, storeId, paymentIntentId
//	                          (new_order on confirmation: orderId, storeId)
//	order_status              orderId, storeId, status (the new status), previousStatus
//	payment_failed            paymentIntentId, storeId
//	review_flagged            flagId, reviewId, storeId, reason, flaggedByUserId
//	review_invitation         orderId, storeId
//	review_response, review_hidden, review_shown  reviewId, storeId
//	payout_*                  payoutId, storeId, status (the payout's new status); payout_cancelled
//	                          also requestedBy
//	wallet_adjusted           walletId, storeId, adjustmentType
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
