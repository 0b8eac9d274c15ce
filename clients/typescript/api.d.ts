/* eslint-disable */
/**
 * The marketplace's typed API for Convex clients.
 *
 * Generated from the services' operation declarations; do not edit.
 * Regenerate with `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestTypeScriptClientIsGenerated`.
 *
 * Usage:
 * ```ts
 * import { ConvexHttpClient } from "convex/browser";
 * import { api } from "@marketplace/api";
 *
 * const client = new ConvexHttpClient("http://127.0.0.1:8080");
 * const cities = await client.query(api.catalog.locations.listCities, {});
 * ```
 */
import type { FunctionReference, PaginationOptions, PaginationResult } from "convex/server";

/**
 * Every public operation, by its path: `api.<area>.<module>.<function>`.
 */
export declare const api: {
  admins: {
    catalog: {
      /**
       * Create an area in a city.
       *
       * Mutation; access `admin`. Runs as `admins/catalog:createArea` (POST /api/run/admins/catalog/createArea).
       */
      createArea: FunctionReference<
        "mutation",
        "public",
        {
          name: string;
          city: string;
        },
        string
      >;
      /**
       * Create a store category.
       *
       * Mutation; access `admin`. Runs as `admins/catalog:createCategory` (POST /api/run/admins/catalog/createCategory).
       */
      createCategory: FunctionReference<
        "mutation",
        "public",
        {
          name: string;
          nameArabic?: string | null;
        },
        string
      >;
      /**
       * Create a city.
       *
       * Mutation; access `admin`. Runs as `admins/catalog:createCity` (POST /api/run/admins/catalog/createCity).
       */
      createCity: FunctionReference<
        "mutation",
        "public",
        {
          name: string;
          nameArabic: string;
        },
        string
      >;
      /**
       * Create a store (its wallet follows through the store.created event).
       *
       * Mutation; access `admin`. Runs as `admins/catalog:createStore` (POST /api/run/admins/catalog/createStore).
       */
      createStore: FunctionReference<
        "mutation",
        "public",
        {
          name: string;
          ownerUserId: string;
          ownerName: string;
          ownerPhone: string;
          primaryCategoryId?: string | null;
          tier?: "basic" | "premium" | "enterprise" | null;
          city?: string | null;
          area?: string | null;
          latitude?: number | null;
          longitude?: number | null;
          isOpen?: boolean | null;
        },
        string
      >;
      /**
       * Rename an area.
       *
       * Mutation; access `admin`. Runs as `admins/catalog:updateArea` (POST /api/run/admins/catalog/updateArea).
       */
      updateArea: FunctionReference<
        "mutation",
        "public",
        {
          areaId: string;
          name: string;
        },
        null
      >;
      /**
       * Rename a city (name and/or nameArabic).
       *
       * Mutation; access `admin`. Runs as `admins/catalog:updateCity` (POST /api/run/admins/catalog/updateCity).
       */
      updateCity: FunctionReference<
        "mutation",
        "public",
        {
          cityId: string;
          name?: string | null;
          nameArabic?: string | null;
        },
        null
      >;
      /**
       * Change the given fields of a store (store.updated); returns the store.
       *
       * Mutation; access `admin`. Runs as `admins/catalog:updateStore` (POST /api/run/admins/catalog/updateStore).
       */
      updateStore: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          name?: string | null;
          ownerUserId?: string | null;
          ownerName?: string | null;
          ownerPhone?: string | null;
          primaryCategoryId?: string | null;
          tier?: "basic" | "premium" | "enterprise" | null;
          city?: string | null;
          area?: string | null;
          latitude?: number | null;
          longitude?: number | null;
          isOpen?: boolean | null;
        },
        {
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
        } | null
      >;
    };
    customers: {
      /**
       * Customers (administrators) by a name's prefix (any case), an exact
       * phone, email, user id or profile id: query 2 to 100 characters; at
       * most 20, by name.
       *
       * Query; access `admin`. Runs as `admins/customers:searchCustomers` (POST /api/run/admins/customers/searchCustomers).
       */
      searchCustomers: FunctionReference<
        "query",
        "public",
        {
          query: string;
        },
        Array<{
          _id: string;
          userId: string;
          name: string;
          phone?: string | null;
          email?: string | null;
          _creationTime: number;
          updatedAt: number;
        }>
      >;
    };
    disputes: {
      /**
       * Customers' disputes of charges, every store's (paginated), optionally
       * of one status (open, won, lost, or closed: won or lost) and one
       * storeId, opened from `from` to `to` when given (epoch ms, inclusive;
       * at most 366 days, else INVALID_ARGUMENT range_too_large). sort: due
       * (by their deadline at the processor, dueBy, soonest first; only with
       * status open, else INVALID_ARGUMENT due_needs_open, and not with a date
       * range: sort_with_range), newest or oldest (by openedAt). By default
       * open ones by due without a range, otherwise newest. Amounts in AED.
       *
       * Query; access `admin`. Runs as `admins/disputes:listDisputes` (POST /api/run/admins/disputes/listDisputes).
       */
      listDisputes: FunctionReference<
        "query",
        "public",
        {
          status?: "open" | "won" | "lost" | "closed" | null;
          storeId?: string | null;
          from?: number | null;
          to?: number | null;
          sort?: "due" | "newest" | "oldest" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          disputeId: string;
          paymentIntentId: string;
          orderId: string;
          storeId: string;
          amount: number;
          currency: string;
          reason: string;
          status: "open" | "won" | "lost";
          dueBy: number;
          openedAt: number;
          closedAt: number | null;
        }>
      >;
    };
    finance: {
      /**
       * Prove that no money went missing, over every store: captured −
       * refunded − disputesLost + otherCurrencyDelivered = notDelivered +
       * paymentDifferences − excess + commissionKept + storeBalances +
       * openPayouts + paidOut + payoutFees + failedKept + disputeFeesCharged
       * − adjustmentsNet, computed in fils. Answers balanced, difference
       * (left − right) and every term, in AED (terms) and in fils
       * (termsFils, differenceFils); disputeFeesBorneByPlatform is listed
       * outside the sum. The sums of the customers service and of this service
       * are not one snapshot: the equation holds at quiescence, once every
       * refund, dispute, delivery and transfer event has been consumed (asOf:
       * when it was read). Orders paid in another currency are counted apart
       * (otherCurrencyOrders); the AED total of those delivered, which their
       * store was credited from, is otherCurrencyDelivered. A full scan of the
       * orders, wallets, payouts and ledger: an administrator's check.
       *
       * Query; access `admin`. Runs as `admins/finance:reconcilePlatform` (POST /api/run/admins/finance/reconcilePlatform).
       */
      reconcilePlatform: FunctionReference<
        "query",
        "public",
        {
          adminUserId: string;
        },
        {
          balanced: boolean;
          difference: number;
          differenceFils: number;
          equation: string;
          terms: Record<string, number>;
          termsFils: Record<string, number>;
          orders: number;
          delivered: number;
          otherCurrencyOrders: number;
          asOf: number;
        } | null
      >;
    };
    orders: {
      /**
       * How many orders listHeldOrders lists with the same filters (storeId,
       * from, to), up to 10000 (then capped: true).
       *
       * Query; access `admin`. Runs as `admins/orders:countHeldOrders` (POST /api/run/admins/orders/countHeldOrders).
       */
      countHeldOrders: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
          from?: number | null;
          to?: number | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * How many orders listOrders lists with the same filters, up to 10000
       * (then capped: true).
       *
       * Query; access `admin`. Runs as `admins/orders:countOrders` (POST /api/run/admins/orders/countOrders).
       */
      countOrders: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
          status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled" | null;
          from?: number | null;
          to?: number | null;
          number?: string | null;
          customerId?: string | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * Orders whose payment is held for review and not yet confirmed or
       * cancelled (administrators), newest first (sort newest, the default, or
       * oldest), optionally of one store and placed from `from` to `to` (epoch
       * ms, inclusive; at most 366 days, else INVALID_ARGUMENT
       * range_too_large).
       *
       * Query; access `admin`. Runs as `admins/orders:listHeldOrders` (POST /api/run/admins/orders/listHeldOrders).
       */
      listHeldOrders: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        }>
      >;
      /**
       * Every order (administrators; held ones too, a resolved one with who
       * resolved it: paymentReview.resolvedBy and resolvedByName), with
       * listStoreOrders' filters and sorts, optionally of one store; the total
       * sorts need storeId and no other filter (INVALID_ARGUMENT
       * sort_with_filter, as listStoreOrders).
       *
       * Query; access `admin`. Runs as `admins/orders:listOrders` (POST /api/run/admins/orders/listOrders).
       */
      listOrders: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
          status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled" | null;
          from?: number | null;
          to?: number | null;
          number?: string | null;
          customerId?: string | null;
          sort?: "newest" | "oldest" | "total_desc" | "total_asc" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        }>
      >;
      /**
       * Refund a paid order, fully or partly (administrators, any paid or held
       * order, any time): amount in AED or lines (productId, quantity) priced
       * as ordered, neither for all that is left to refund (the delivery fee
       * goes with the last of the order), with a reason. The refund is
       * reserved at once and asked of the processor; it takes effect when the
       * processor confirms it (the order's refundedAmount and refundStatus).
       * Above what is left to refund: FAILED_PRECONDITION (details.reason
       * refund_exceeds_payment, details.refundableAmount; lines that complete
       * the order are refunded with the delivery fee, and refused so when less
       * is left: ask all that is left). Send an Idempotency-Key with each
       * refund (a retry reuses it): a call without one that repeats a refund
       * of the order still requested or already refunded, asked less than 10
       * minutes before by the same kind of caller with the same reason and the
       * same amount, lines or all that is left, is taken for a retry and
       * refused FAILED_PRECONDITION (details.reason refund_duplicate,
       * details.refundId the earlier refund); a new key asks for another
       * identical refund.
       *
       * Mutation; access `admin`. Runs as `admins/orders:refundOrder` (POST /api/run/admins/orders/refundOrder).
       */
      refundOrder: FunctionReference<
        "mutation",
        "public",
        {
          orderId: string;
          reason: string;
          amount?: number | null;
          lines?: Array<{
            productId: string;
            quantity: number;
          }> | null;
        },
        {
          refundId: string;
          status: "requested" | "succeeded" | "failed";
          amount: number;
          refundableAmount: number;
        } | null
      >;
    };
    payoutOperations: {
      /**
       * Adjust a store's wallet, with a reason kept in the ledger; returns the
       * wallet. The administrator is recorded by adminUserId and, when it is
       * the caller and their token states a name, by that name (adminName on
       * the transaction's metadata and the wallet.adjusted event), which
       * administrators alone read. move_pending_to_available releases held
       * earnings before their hold (pendingBalanceHoldDays) is over, oldest
       * first: in development, what makes a new store's earnings payable at
       * once.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:adjustWalletBalance` (POST /api/run/admins/payoutOperations/adjustWalletBalance).
       */
      adjustWalletBalance: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          walletId: string;
          adjustmentType: "add_balance" | "deduct_balance" | "add_pending" | "deduct_pending" | "move_pending_to_available";
          /** AED, at most two decimals */
          amount: number;
          reason: string;
          adminUserId: string;
          /** multi-line text */
          adminNotes?: string | null;
        },
        {
          _id: string;
          storeId: string;
          availableBalance: number;
          pendingBalance: number;
          totalEarnings: number;
          totalPayouts: number;
          lastPayoutDate: number | null;
          totalOrders: number;
          disputedBalance: number;
          debt: number;
        } | null
      >;
      /**
       * Approve a requested payout (requested to approved); returns the
       * payout. A payout of a store handed to another owner since its request
       * (handedOver) is FAILED_PRECONDITION (details.reason store_handed_over)
       * unless confirmHandover is true: its bank account is the former
       * owner's.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:approvePayout` (POST /api/run/admins/payoutOperations/approvePayout).
       */
      approvePayout: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          /** multi-line text */
          adminNotes?: string | null;
          confirmHandover?: boolean | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * Approve 1 to 50 requested payouts (payoutIds, each once) in one
       * transaction: all or none. Whose store each payout's is now is asked
       * first (the catalog unreachable: UNAVAILABLE, nothing changed); a
       * payout of a store handed over since its request needs its id in
       * confirmHandover, as approvePayout's confirmHandover. Any payout
       * refused is FAILED_PRECONDITION bulk_refused and changes nothing:
       * details.refused lists each refused payout {payoutId, code, reason,
       * message}. Returns {payouts (after the move, in the order given), total
       * (their requested amounts, AED)}.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:approvePayouts` (POST /api/run/admins/payoutOperations/approvePayouts).
       */
      approvePayouts: FunctionReference<
        "mutation",
        "public",
        {
          payoutIds: Array<string>;
          adminUserId: string;
          /** multi-line text */
          adminNotes?: string | null;
          confirmHandover?: Array<string> | null;
        },
        {
          payouts: Array<{
            _id: string;
            _creationTime: number;
            storeId: string;
            storeName: string;
            storeOwnerName: string;
            storeOwnerPhone: string;
            requestedAmount: number;
            processingFee: number;
            netAmount: number;
            bankDetails: {
              IBAN: string;
              bankName: string;
              accountHolderName: string;
            };
            status: string;
            requestDate: number;
            approvedDate: number | null;
            requestedBy: string;
            requestedByName?: string | null;
            currentWalletBalance: number;
            totalEarnings: number;
            totalOrders: number;
            handedOverAt: number | null;
            handedOver: boolean;
            approvedBy: string | null;
            approvedByName?: string | null;
            processingDate: number | null;
            processingMethod: string | null;
            transactionReference: string | null;
            completedDate: number | null;
            rejectedDate: number | null;
            rejectionReason: string | null;
            failedDate: number | null;
            failureReason: string | null;
            balanceRestored: boolean;
            adminNotes?: string | null;
            history: Array<{
              action: string;
              from: string | null;
              to: string;
              by: string;
              byName?: string | null;
              at: number;
              notes?: string | null;
              reason?: string | null;
              method?: string | null;
              reference?: string | null;
              restoreBalance?: boolean | null;
              handoverConfirmed?: boolean | null;
            }>;
          }>;
          total: number;
        } | null
      >;
      /**
       * Complete a payout being paid (processing to completed); returns the
       * payout. Needs confirmHandover: true for a payout of a store handed
       * over since its request, as approvePayout. A payout sent through the
       * processor whose transfer is pending is FAILED_PRECONDITION
       * processor_transfer_pending (settled: processor_transfer_settled): the
       * processor's outcome settles it.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:completePayout` (POST /api/run/admins/payoutOperations/completePayout).
       */
      completePayout: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          transactionReference?: string | null;
          /** multi-line text */
          adminNotes?: string | null;
          confirmHandover?: boolean | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * How many payouts admins.payoutOperations.listPayouts lists with the
       * same filters (status or open, storeId, from, to; a range of at most
       * 366 days, else INVALID_ARGUMENT range_too_large): count, at most
       * 10,000 (then capped is true).
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:countPayouts` (POST /api/run/admins/payoutOperations/countPayouts).
       */
      countPayouts: FunctionReference<
        "query",
        "public",
        {
          status?: "open" | "requested" | "approved" | "processing" | "completed" | "cancelled" | "failed" | null;
          storeId?: string | null;
          from?: number | null;
          to?: number | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * One payout with everything recorded on it.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:getPayout` (POST /api/run/admins/payoutOperations/getPayout).
       */
      getPayout: FunctionReference<
        "query",
        "public",
        {
          payoutId: string;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * Payout figures: open, processing, completed today and this month
       * (Asia/Dubai), top stores.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:getPayoutStatistics` (POST /api/run/admins/payoutOperations/getPayoutStatistics).
       */
      getPayoutStatistics: FunctionReference<
        "query",
        "public",
        {
          dateRange?: {
            startDate: number;
            endDate: number;
          } | null;
        },
        {
          totalPendingRequests: number;
          totalPendingAmount: number;
          totalProcessingRequests: number;
          totalProcessingAmount: number;
          totalCompletedToday: number;
          totalCompletedTodayAmount: number;
          totalCompletedThisMonth: number;
          totalCompletedThisMonthAmount: number;
          averageProcessingTime: number;
          topStoresByPayouts: Array<{
            storeId: string;
            storeName: string;
            totalPayouts: number;
            totalAmount: number;
          }>;
        } | null
      >;
      /**
       * Open payouts (requested, approved, processing), oldest request first.
       * A payout whose store was handed to another owner after its request
       * (admins.catalog.updateStore) is flagged: handedOver, and handedOverAt
       * once this service has heard of the handover.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:getPendingPayouts` (POST /api/run/admins/payoutOperations/getPendingPayouts).
       */
      getPendingPayouts: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
          limit?: number | null;
        },
        Array<{
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
        }>
      >;
      /**
       * Every wallet's figures summed (AED): wallets, availableBalance,
       * pendingBalance, disputedBalance, debt (the sum of the debts) and
       * inDebt (how many), totalEarnings, totalPayouts, totalOrders. Reads
       * every wallet.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:getWalletTotals` (POST /api/run/admins/payoutOperations/getWalletTotals).
       */
      getWalletTotals: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        {
          wallets: number;
          availableBalance: number;
          pendingBalance: number;
          disputedBalance: number;
          debt: number;
          inDebt: number;
          totalEarnings: number;
          totalPayouts: number;
          totalOrders: number;
        } | null
      >;
      /**
       * Every payout (paginated), of one status (or open: requested, approved
       * or processing) and one store when given, requested from `from` to `to`
       * (epoch ms, inclusive) when given; sort newest (default), oldest,
       * amount_desc or amount_asc (by requested amount; not with a date range:
       * INVALID_ARGUMENT sort_with_range). With the store's owner and wallet
       * figures, as getPayout.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:listPayouts` (POST /api/run/admins/payoutOperations/listPayouts).
       */
      listPayouts: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
          status?: "open" | "requested" | "approved" | "processing" | "completed" | "cancelled" | "failed" | null;
          storeId?: string | null;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | "amount_desc" | "amount_asc" | null;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        }>
      >;
      /**
       * Every store's wallet (paginated), sorted by available_desc (default),
       * available_asc, pending_desc|asc, disputed_desc|asc or
       * updated_desc|asc; inDebt: only the wallets whose available balance is
       * below zero (sorted by available balance). Each with its store's name
       * and owner (the catalog's now, else the wallet's copy) and updatedAt.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:listWallets` (POST /api/run/admins/payoutOperations/listWallets).
       */
      listWallets: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
          sort?: "available_desc" | "available_asc" | "pending_desc" | "pending_asc" | "disputed_desc" | "disputed_asc" | "updated_desc" | "updated_asc" | null;
          inDebt?: boolean | null;
        },
        PaginationResult<{
          _id: string;
          storeId: string;
          availableBalance: number;
          pendingBalance: number;
          totalEarnings: number;
          totalPayouts: number;
          lastPayoutDate: number | null;
          totalOrders: number;
          disputedBalance: number;
          debt: number;
          storeName: string;
          ownerUserId: string;
          ownerName: string;
          updatedAt: number;
        }>
      >;
      /**
       * Mark an approved or processing payout failed, optionally restoring its
       * amount; returns the payout. A payout sent through the processor whose
       * transfer is pending is FAILED_PRECONDITION processor_transfer_pending
       * (settled: processor_transfer_settled): the processor's outcome settles
       * it.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:markPayoutAsFailed` (POST /api/run/admins/payoutOperations/markPayoutAsFailed).
       */
      markPayoutAsFailed: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          /** multi-line text */
          failureReason: string;
          /** multi-line text */
          adminNotes?: string | null;
          restoreBalance?: boolean | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * Mark an approved payout as being paid (approved to processing);
       * returns the payout. Needs confirmHandover: true for a payout of a
       * store handed over since its request, as approvePayout.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:markPayoutAsProcessing` (POST /api/run/admins/payoutOperations/markPayoutAsProcessing).
       */
      markPayoutAsProcessing: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          processingMethod: "bank_transfer" | "manual" | "third_party";
          transactionReference?: string | null;
          /** multi-line text */
          adminNotes?: string | null;
          confirmHandover?: boolean | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * Recompute a store's wallet from its ledger and compare it with the
       * balances.
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:reconcileWallet` (POST /api/run/admins/payoutOperations/reconcileWallet).
       */
      reconcileWallet: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          walletId: string;
          storeId: string;
          wallet: {
            availableBalance: number;
            pendingBalance: number;
            totalEarnings: number;
            totalPayouts: number;
            totalOrders: number;
          };
          ledger: {
            availableBalance: number;
            pendingBalance: number;
            totalEarnings: number;
            totalPayouts: number;
            totalOrders: number;
          };
          transactions: number;
          consistent: boolean;
          inconsistencies: Array<string>;
          unconfirmedEarnings: Array<{
            transactionId: string;
            orderId: string;
            amount: number;
            reason: string;
            orderEarnings?: number | null;
          }>;
        } | null
      >;
      /**
       * Reject a requested payout (its amount returns to the available
       * balance); returns the payout.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:rejectPayout` (POST /api/run/admins/payoutOperations/rejectPayout).
       */
      rejectPayout: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          /** multi-line text */
          rejectionReason: string;
          /** multi-line text */
          adminNotes?: string | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
      /**
       * Reject 1 to 50 requested payouts (payoutIds, each once) with one
       * rejectionReason, in one transaction: all or none (their amounts return
       * to the available balances). Any payout refused is FAILED_PRECONDITION
       * bulk_refused and changes nothing: details.refused lists each
       * {payoutId, code, reason, message}. Returns {payouts, total} as
       * approvePayouts.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:rejectPayouts` (POST /api/run/admins/payoutOperations/rejectPayouts).
       */
      rejectPayouts: FunctionReference<
        "mutation",
        "public",
        {
          payoutIds: Array<string>;
          adminUserId: string;
          /** multi-line text */
          rejectionReason: string;
          /** multi-line text */
          adminNotes?: string | null;
        },
        {
          payouts: Array<{
            _id: string;
            _creationTime: number;
            storeId: string;
            storeName: string;
            storeOwnerName: string;
            storeOwnerPhone: string;
            requestedAmount: number;
            processingFee: number;
            netAmount: number;
            bankDetails: {
              IBAN: string;
              bankName: string;
              accountHolderName: string;
            };
            status: string;
            requestDate: number;
            approvedDate: number | null;
            requestedBy: string;
            requestedByName?: string | null;
            currentWalletBalance: number;
            totalEarnings: number;
            totalOrders: number;
            handedOverAt: number | null;
            handedOver: boolean;
            approvedBy: string | null;
            approvedByName?: string | null;
            processingDate: number | null;
            processingMethod: string | null;
            transactionReference: string | null;
            completedDate: number | null;
            rejectedDate: number | null;
            rejectionReason: string | null;
            failedDate: number | null;
            failureReason: string | null;
            balanceRestored: boolean;
            adminNotes?: string | null;
            history: Array<{
              action: string;
              from: string | null;
              to: string;
              by: string;
              byName?: string | null;
              at: number;
              notes?: string | null;
              reason?: string | null;
              method?: string | null;
              reference?: string | null;
              restoreBalance?: boolean | null;
              handoverConfirmed?: boolean | null;
            }>;
          }>;
          total: number;
        } | null
      >;
      /**
       * Release now the held earnings whose hold is over (the release loop
       * does it every minute).
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:releaseDueEarnings` (POST /api/run/admins/payoutOperations/releaseDueEarnings).
       */
      releaseDueEarnings: FunctionReference<
        "mutation",
        "public",
        {
          adminUserId: string;
        },
        {
          released: number;
          amount: number;
        } | null
      >;
      /**
       * Payouts (administrators) by query (2 to 100 characters, else
       * INVALID_ARGUMENT): a payout's id, the end of one (its short form, the
       * last 6 hex digits, with or without #), or any part of a transaction
       * reference (any case), among the newest 2000 payouts by request date
       * (partial: true when there are older ones; a whole id finds any
       * payout); and the newest payouts of each of storeIds (at most 10:
       * stores found by name). At most 20, each with matchedBy (id, reference
       * or store).
       *
       * Query; access `admin`. Runs as `admins/payoutOperations:searchPayouts` (POST /api/run/admins/payoutOperations/searchPayouts).
       */
      searchPayouts: FunctionReference<
        "query",
        "public",
        {
          query: string;
          storeIds?: Array<string> | null;
        },
        {
          payouts: Array<{
            _id: string;
            storeId: string;
            storeName: string;
            requestedAmount: number;
            status: string;
            requestDate: number;
            transactionReference: string | null;
            matchedBy: "id" | "reference" | "store";
          }>;
          partial: boolean;
        }
      >;
      /**
       * Send an approved payout's net amount to the store's bank account (the
       * payout's bankDetails) through the payment processor, and mark it
       * processing (method third_party, the processor's transfer id as
       * transactionReference); returns the payout. The processor's outcome
       * completes the payout, or fails it with its amount restored to the
       * available balance (by "processor" in its history). Calling again is
       * safe: the same transfer is sent once. The processor refusing the
       * transfer is FAILED_PRECONDITION (details.reason processor_refused;
       * nothing sent), unreachable UNAVAILABLE (call again). Needs
       * confirmHandover: true for a payout of a store handed over since its
       * request, as markPayoutAsProcessing.
       *
       * Mutation; access `admin`. Runs as `admins/payoutOperations:sendPayoutThroughProcessor` (POST /api/run/admins/payoutOperations/sendPayoutThroughProcessor).
       */
      sendPayoutThroughProcessor: FunctionReference<
        "mutation",
        "public",
        {
          payoutId: string;
          adminUserId: string;
          /** multi-line text */
          adminNotes?: string | null;
          confirmHandover?: boolean | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        } | null
      >;
    };
    platformAdmin: {
      /**
       * Add or replace a category's commission entry.
       *
       * Mutation; access `admin`. Runs as `admins/platformAdmin:addCategoryCommission` (POST /api/run/admins/platformAdmin/addCategoryCommission).
       */
      addCategoryCommission: FunctionReference<
        "mutation",
        "public",
        {
          adminUserId: string;
          configId: string;
          categoryId: string;
          commissionRate: number;
          /** AED, at most two decimals */
          fixedFee?: number | null;
          /** AED, at most two decimals */
          minimumCommission?: number | null;
        },
        {
          _id: string;
          _creationTime: number;
          defaultCommissionRate: number;
          fixedFeePerOrder: number;
          minimumCommission: number;
          maximumCommission: number;
          categoryCommissions: Array<{
            categoryId: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          storeTierCommissions: Array<{
            tierName: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          walletSettings: {
            minPayoutAmount: number;
            maxPayoutAmount: number;
            payoutProcessingFee: number;
            pendingBalanceHoldDays: number;
            disputeFee: number;
            disputeFeeChargedTo: "store" | "platform";
          };
          locationSettings: {
            defaultSearchRadiusKm: number;
            maxSearchRadiusKm: number;
          };
          isActive: boolean;
          effectiveDate: number;
        } | null
      >;
      /**
       * Create the first active configuration with the defaults.
       *
       * Mutation; access `admin`. Runs as `admins/platformAdmin:createInitialPlatformConfig` (POST /api/run/admins/platformAdmin/createInitialPlatformConfig).
       */
      createInitialPlatformConfig: FunctionReference<
        "mutation",
        "public",
        {
          adminUserId: string;
        },
        string
      >;
      /**
       * The configuration in force, or null.
       *
       * Query; access `authenticated`. Runs as `admins/platformAdmin:getActivePlatformConfig` (POST /api/run/admins/platformAdmin/getActivePlatformConfig).
       */
      getActivePlatformConfig: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        {
          _id: string;
          _creationTime: number;
          defaultCommissionRate: number;
          fixedFeePerOrder: number;
          minimumCommission: number;
          maximumCommission: number;
          categoryCommissions: Array<{
            categoryId: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          storeTierCommissions: Array<{
            tierName: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          walletSettings: {
            minPayoutAmount: number;
            maxPayoutAmount: number;
            payoutProcessingFee: number;
            pendingBalanceHoldDays: number;
            disputeFee: number;
            disputeFeeChargedTo: "store" | "platform";
          };
          locationSettings: {
            defaultSearchRadiusKm: number;
            maxSearchRadiusKm: number;
          };
          isActive: boolean;
          effectiveDate: number;
        } | null
      >;
      /**
       * The commission of an order of a store.
       *
       * Query; access `authenticated`. Runs as `admins/platformAdmin:getCommissionPreview` (POST /api/run/admins/platformAdmin/getCommissionPreview).
       */
      getCommissionPreview: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          /** AED, at most two decimals */
          subtotal: number;
          /** AED, at most two decimals */
          deliveryFee: number;
        },
        {
          subtotal: number;
          deliveryFee: number;
          totalAmount: number;
          platformCommission: number;
          storeEarnings: number;
          commissionRate: number;
          fixedFee: number;
          commissionBreakdown: {
            percentageCommission: number;
            fixedFeeAmount: number;
            minimumApplied: boolean;
            maximumApplied: boolean;
          };
        } | null
      >;
      /**
       * A configuration's change history, newest first (sort oldest: oldest
       * first; paginated), the changes made from `from` to `to` when given
       * (epoch ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT
       * range_too_large).
       *
       * Query; access `admin`. Runs as `admins/platformAdmin:getConfigHistory` (POST /api/run/admins/platformAdmin/getConfigHistory).
       */
      getConfigHistory: FunctionReference<
        "query",
        "public",
        {
          configId: string;
          paginationOpts: PaginationOptions;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | null;
        },
        PaginationResult<{
          _id: string;
          configId: string;
          changedBy: string;
          changedByName?: string;
          changedAt: number;
          operation: string;
          changes: Array<{
            field: string;
            oldValue: null | number | boolean | string | Record<string, any>;
            newValue: null | number | boolean | string | Record<string, any>;
          }>;
        }>
      >;
      /**
       * Replace a store tier's commission entry; returns the updated
       * configuration.
       *
       * Mutation; access `admin`. Runs as `admins/platformAdmin:setTierCommission` (POST /api/run/admins/platformAdmin/setTierCommission).
       */
      setTierCommission: FunctionReference<
        "mutation",
        "public",
        {
          adminUserId: string;
          configId: string;
          tierName: "basic" | "premium" | "enterprise";
          commissionRate: number;
          /** AED, at most two decimals */
          fixedFee?: number | null;
          /** AED, at most two decimals */
          minimumCommission?: number | null;
        },
        {
          _id: string;
          _creationTime: number;
          defaultCommissionRate: number;
          fixedFeePerOrder: number;
          minimumCommission: number;
          maximumCommission: number;
          categoryCommissions: Array<{
            categoryId: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          storeTierCommissions: Array<{
            tierName: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          walletSettings: {
            minPayoutAmount: number;
            maxPayoutAmount: number;
            payoutProcessingFee: number;
            pendingBalanceHoldDays: number;
            disputeFee: number;
            disputeFeeChargedTo: "store" | "platform";
          };
          locationSettings: {
            defaultSearchRadiusKm: number;
            maxSearchRadiusKm: number;
          };
          isActive: boolean;
          effectiveDate: number;
        } | null
      >;
      /**
       * Change the provided fields of a configuration.
       *
       * Mutation; access `admin`. Runs as `admins/platformAdmin:updatePlatformConfig` (POST /api/run/admins/platformAdmin/updatePlatformConfig).
       */
      updatePlatformConfig: FunctionReference<
        "mutation",
        "public",
        {
          adminUserId: string;
          configId: string;
          defaultCommissionRate?: number | null;
          /** AED, at most two decimals */
          fixedFeePerOrder?: number | null;
          /** AED, at most two decimals */
          minimumCommission?: number | null;
          /** AED, at most two decimals */
          maximumCommission?: number | null;
          walletSettings?: {
            /** AED, at most two decimals */
            minPayoutAmount?: number | null;
            /** AED, at most two decimals */
            maxPayoutAmount?: number | null;
            /** AED, at most two decimals */
            payoutProcessingFee?: number | null;
            pendingBalanceHoldDays?: number | null;
            /** AED, at most two decimals */
            disputeFee?: number | null;
            disputeFeeChargedTo?: "store" | "platform" | null;
          } | null;
          locationSettings?: {
            defaultSearchRadiusKm?: number | null;
            maxSearchRadiusKm?: number | null;
          } | null;
        },
        {
          _id: string;
          _creationTime: number;
          defaultCommissionRate: number;
          fixedFeePerOrder: number;
          minimumCommission: number;
          maximumCommission: number;
          categoryCommissions: Array<{
            categoryId: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          storeTierCommissions: Array<{
            tierName: string;
            commissionRate: number;
            fixedFee?: number | null;
            minimumCommission?: number | null;
          }>;
          walletSettings: {
            minPayoutAmount: number;
            maxPayoutAmount: number;
            payoutProcessingFee: number;
            pendingBalanceHoldDays: number;
            disputeFee: number;
            disputeFeeChargedTo: "store" | "platform";
          };
          locationSettings: {
            defaultSearchRadiusKm: number;
            maxSearchRadiusKm: number;
          };
          isActive: boolean;
          effectiveDate: number;
        } | null
      >;
    };
    reviewModeration: {
      /**
       * How many flags listFlags lists with the same filters (status, from,
       * to, by), counted up to 10,000: {count, capped}.
       *
       * Query; access `admin`. Runs as `admins/reviewModeration:countFlags` (POST /api/run/admins/reviewModeration/countFlags).
       */
      countFlags: FunctionReference<
        "query",
        "public",
        {
          status?: "pending" | "dismissed" | "resolved" | null;
          from?: number | null;
          to?: number | null;
          by?: "report" | "decision" | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * Review flags, oldest first (sort newest: newest first), optionally of
       * one status and raised from `from` to `to` (epoch ms, inclusive; at
       * most 366 days apart, else INVALID_ARGUMENT range_too_large), each with
       * its review (paginated; the review's moderation names who hid or showed
       * it last: adminUserId, and adminName when their token stated one). by
       * decision: the decisions of one status (dismissed or resolved, else
       * INVALID_ARGUMENT) ordered, and from/to taken, by decision time
       * (resolution.resolvedAt) instead of report time.
       *
       * Query; access `admin`. Runs as `admins/reviewModeration:listFlags` (POST /api/run/admins/reviewModeration/listFlags).
       */
      listFlags: FunctionReference<
        "query",
        "public",
        {
          status?: "pending" | "dismissed" | "resolved" | null;
          from?: number | null;
          to?: number | null;
          sort?: "oldest" | "newest" | null;
          by?: "report" | "decision" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          reviewId: string;
          storeId: string;
          reason: string;
          description?: string;
          status: string;
          flaggedBy: {
            customerId: string;
            userId: string;
            name: string;
          };
          resolution?: {
            action: string;
            adminUserId: string;
            adminName?: string;
            resolvedAt: number;
            adminNotes?: string;
            through: string;
            byFlagId?: string;
          } | null;
          review: {
            _id: string;
            _creationTime: number;
            storeId: string;
            rating: number;
            title?: string;
            comment?: string;
            photoUrls: Array<string>;
            isVerifiedPurchase: boolean;
            helpfulCount: number;
            notHelpfulCount: number;
            storeResponse?: {
              comment: string;
              respondedAt: number;
              updatedAt?: number;
            } | null;
            customer: {
              _id: string;
              name: string;
            };
            userVote?: boolean | null;
            isEdited: boolean;
            updatedAt: number;
            store: {
              _id: string;
              name: string;
            };
            isHidden: boolean;
            canEdit: boolean;
            canDelete: boolean;
            moderation?: {
              visible: boolean;
              adminUserId: string;
              adminName?: string;
              at: number;
              flagId?: string;
              adminNotes?: string;
            } | null;
            editHistory?: Array<{
              rating: number;
              title: string;
              comment: string;
              photoIds: Array<string>;
              writtenAt: number;
              replacedAt: number;
            }>;
            orderId?: string;
          };
        }>
      >;
      /**
       * Decide a pending flag: dismiss it (the review stays) or hide the
       * review (its pending flags are resolved, its author notified).
       *
       * Mutation; access `admin`. Runs as `admins/reviewModeration:resolveFlag` (POST /api/run/admins/reviewModeration/resolveFlag).
       */
      resolveFlag: FunctionReference<
        "mutation",
        "public",
        {
          flagId: string;
          adminUserId: string;
          action: "dismiss" | "hide_review";
          /** multi-line text */
          adminNotes?: string | null;
        },
        null
      >;
      /**
       * Reviews of every store, hidden ones too (administrators), by query: 2
       * to 100 characters, at most 8 words (else INVALID_ARGUMENT), every word
       * found (any case, any part of a word) in the reviewer's name or in the
       * title and comment; among the newest 2000 reviews (partial: true when
       * there are older ones). At most 20, newest first, each with matchedBy
       * (name or comment).
       *
       * Query; access `admin`. Runs as `admins/reviewModeration:searchReviews` (POST /api/run/admins/reviewModeration/searchReviews).
       */
      searchReviews: FunctionReference<
        "query",
        "public",
        {
          query: string;
        },
        {
          reviews: Array<{
            _id: string;
            storeId: string;
            storeName: string;
            customerId: string;
            customerName: string;
            rating: number;
            title: string;
            comment: string;
            hidden: boolean;
            _creationTime: number;
            matchedBy: "name" | "comment";
          }>;
          partial: boolean;
        }
      >;
      /**
       * Hide a review or show it again.
       *
       * Mutation; access `admin`. Runs as `admins/reviewModeration:setReviewVisibility` (POST /api/run/admins/reviewModeration/setReviewVisibility).
       */
      setReviewVisibility: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          adminUserId: string;
          visible: boolean;
          /** multi-line text */
          adminNotes?: string | null;
        },
        null
      >;
    };
  };
  catalog: {
    categories: {
      /**
       * All categories by name.
       *
       * Query; access `public`. Runs as `catalog/categories:listCategories` (POST /api/run/catalog/categories/listCategories).
       */
      listCategories: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        Array<{
          _id: string;
          name: string;
          nameArabic: string;
          _creationTime: number;
        }>
      >;
    };
    locations: {
      /**
       * Areas of a city by name.
       *
       * Query; access `public`. Runs as `catalog/locations:listAreas` (POST /api/run/catalog/locations/listAreas).
       */
      listAreas: FunctionReference<
        "query",
        "public",
        {
          city: string;
        },
        Array<{
          _id: string;
          name: string;
          city: string;
          _creationTime: number;
        }>
      >;
      /**
       * All cities by name.
       *
       * Query; access `public`. Runs as `catalog/locations:listCities` (POST /api/run/catalog/locations/listCities).
       */
      listCities: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        Array<{
          _id: string;
          name: string;
          nameArabic: string;
          _creationTime: number;
        }>
      >;
    };
    stores: {
      /**
       * Stores by name, optionally of a category, city or area, or whose name
       * starts with search (any case; paginated).
       *
       * Query; access `public`. Runs as `catalog/stores:listStores` (POST /api/run/catalog/stores/listStores).
       */
      listStores: FunctionReference<
        "query",
        "public",
        {
          categoryId?: string | null;
          city?: string | null;
          area?: string | null;
          search?: string | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
        }>
      >;
      /**
       * Open stores within a radius of a point, nearest first, each with
       * distanceKm.
       *
       * Query; access `public`. Runs as `catalog/stores:searchNearby` (POST /api/run/catalog/stores/searchNearby).
       */
      searchNearby: FunctionReference<
        "query",
        "public",
        {
          latitude: number;
          longitude: number;
          radiusKm?: number | null;
        },
        Array<{
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
          distanceKm: number;
        }>
      >;
    };
  };
  customers: {
    addresses: {
      /**
       * Add a delivery address to the caller's profile (customerId: the
       * caller's, from customers.profile.upsertMyProfile). city and area are
       * the ids of the catalog's city and area (the argument is city, not
       * cityId); latitude and longitude are strings of decimal degrees, such
       * as "25.2048" and "55.2708" (a number is refused).
       *
       * Mutation; access `customer`. Runs as `customers/addresses:createAddress` (POST /api/run/customers/addresses/createAddress).
       */
      createAddress: FunctionReference<
        "mutation",
        "public",
        {
          customerId: string;
          name: string;
          fullAddress: string;
          city: string;
          area: string;
          flatVilaNumber?: string | null;
          buildingNameNumber?: string | null;
          landmark?: string | null;
          latitude?: string | null;
          longitude?: string | null;
          isDefault?: boolean | null;
        },
        string
      >;
      /**
       * Delete one of the caller's addresses.
       *
       * Mutation; access `customer`. Runs as `customers/addresses:deleteAddress` (POST /api/run/customers/addresses/deleteAddress).
       */
      deleteAddress: FunctionReference<
        "mutation",
        "public",
        {
          addressId: string;
        },
        null
      >;
      /**
       * One of the caller's addresses, or null.
       *
       * Query; access `customer`. Runs as `customers/addresses:getAddress` (POST /api/run/customers/addresses/getAddress).
       */
      getAddress: FunctionReference<
        "query",
        "public",
        {
          addressId: string;
        },
        {
          _id: string;
          _creationTime: number;
          customerId?: string;
          name: string;
          fullAddress: string;
          city: {
            _id: string;
            name: string;
            nameArabic: string;
          } | null;
          area: {
            _id: string;
            name: string;
            city: string;
          } | null;
          flatVilaNumber?: string | null;
          buildingNameNumber?: string | null;
          landmark?: string | null;
          latitude?: string | null;
          longitude?: string | null;
          isDefault: boolean;
          isActive: boolean;
        } | null
      >;
      /**
       * The caller's active addresses, default first.
       *
       * Query; access `customer`. Runs as `customers/addresses:getCustomerAddresses` (POST /api/run/customers/addresses/getCustomerAddresses).
       */
      getCustomerAddresses: FunctionReference<
        "query",
        "public",
        {
          customerId?: string | null;
        },
        Array<{
          _id: string;
          _creationTime: number;
          customerId?: string;
          name: string;
          fullAddress: string;
          city: {
            _id: string;
            name: string;
            nameArabic: string;
          } | null;
          area: {
            _id: string;
            name: string;
            city: string;
          } | null;
          flatVilaNumber?: string | null;
          buildingNameNumber?: string | null;
          landmark?: string | null;
          latitude?: string | null;
          longitude?: string | null;
          isDefault: boolean;
          isActive: boolean;
        }>
      >;
      /**
       * Make one of the caller's addresses the default.
       *
       * Mutation; access `customer`. Runs as `customers/addresses:setDefaultAddress` (POST /api/run/customers/addresses/setDefaultAddress).
       */
      setDefaultAddress: FunctionReference<
        "mutation",
        "public",
        {
          addressId: string;
        },
        null
      >;
      /**
       * Change the provided fields of one of the caller's addresses (latitude
       * and longitude as strings, such as "25.2048").
       *
       * Mutation; access `customer`. Runs as `customers/addresses:updateAddress` (POST /api/run/customers/addresses/updateAddress).
       */
      updateAddress: FunctionReference<
        "mutation",
        "public",
        {
          addressId: string;
          name?: string | null;
          fullAddress?: string | null;
          city?: string | null;
          area?: string | null;
          flatVilaNumber?: string | null;
          buildingNameNumber?: string | null;
          landmark?: string | null;
          latitude?: string | null;
          longitude?: string | null;
          isDefault?: boolean | null;
          isActive?: boolean | null;
        },
        null
      >;
    };
    cart: {
      /**
       * Add a product to the caller's cart (again: more of it).
       *
       * Mutation; access `customer`. Runs as `customers/cart:addItem` (POST /api/run/customers/cart/addItem).
       */
      addItem: FunctionReference<
        "mutation",
        "public",
        {
          productId: string;
          quantity: number;
        },
        string
      >;
      /**
       * The caller's cart, optionally one store's part, with its subtotal.
       *
       * Query; access `customer`. Runs as `customers/cart:getMyCart` (POST /api/run/customers/cart/getMyCart).
       */
      getMyCart: FunctionReference<
        "query",
        "public",
        {
          storeId?: string | null;
        },
        {
          items: Array<{
            _id: string;
            productId: string;
            storeId: string;
            name: string;
            unitPrice: number;
            quantity: number;
          }>;
          subtotal: number;
        } | null
      >;
      /**
       * Remove a line from the caller's cart.
       *
       * Mutation; access `customer`. Runs as `customers/cart:removeItem` (POST /api/run/customers/cart/removeItem).
       */
      removeItem: FunctionReference<
        "mutation",
        "public",
        {
          itemId: string;
        },
        null
      >;
    };
    checkout: {
      /**
       * Start paying for the caller's cart lines of a store: creates the
       * processor's payment intent for the lines plus the delivery fee, with
       * the metadata the webhook turns into the order.
       *
       * Mutation; access `customer`. Runs as `customers/checkout:createPaymentIntent` (POST /api/run/customers/checkout/createPaymentIntent).
       */
      createPaymentIntent: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          addressId: string;
          deliveryType: "standard" | "express";
        },
        {
          paymentIntentId: string;
          clientSecret: string;
          amount: number;
          currency: string;
          publishableKey: string;
          subtotal: number;
          deliveryFee: number;
        }
      >;
    };
    orders: {
      /**
       * Cancel the caller's order before the store prepares it (pending or
       * confirmed); what was paid is refunded in full.
       *
       * Mutation; access `customer`. Runs as `customers/orders:cancelMyOrder` (POST /api/run/customers/orders/cancelMyOrder).
       */
      cancelMyOrder: FunctionReference<
        "mutation",
        "public",
        {
          orderId: string;
        },
        null
      >;
      /**
       * The caller's orders, newest first.
       *
       * Query; access `customer`. Runs as `customers/orders:getMyOrders` (POST /api/run/customers/orders/getMyOrders).
       */
      getMyOrders: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        }>
      >;
      /**
       * The caller's order paid with a payment intent (administrators:
       * anyone's), or null.
       *
       * Query; access `authenticated`. Runs as `customers/orders:getOrderByPaymentIntent` (POST /api/run/customers/orders/getOrderByPaymentIntent).
       */
      getOrderByPaymentIntent: FunctionReference<
        "query",
        "public",
        {
          paymentIntentId: string;
        },
        {
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        } | null
      >;
    };
    profile: {
      /**
       * The caller's customer profile, or null.
       *
       * Query; access `authenticated`. Runs as `customers/profile:getMyProfile` (POST /api/run/customers/profile/getMyProfile).
       */
      getMyProfile: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        {
          _id: string;
          userId: string;
          name: string;
          phone?: string | null;
          email?: string | null;
          _creationTime: number;
          updatedAt: number;
        } | null
      >;
      /**
       * Create or update the caller's customer profile.
       *
       * Mutation; access `authenticated`. Runs as `customers/profile:upsertMyProfile` (POST /api/run/customers/profile/upsertMyProfile).
       */
      upsertMyProfile: FunctionReference<
        "mutation",
        "public",
        {
          name: string;
          phone?: string | null;
          email?: string | null;
        },
        string
      >;
    };
  };
  notifications: {
    inbox: {
      /**
       * How many notifications notifications.inbox.list lists with the same
       * filters (read, kind, from, to), counted up to 10,000: {count, capped}
       * (capped: there may be more: past 10,000, or, with read or kind, among
       * more than the newest 10,000 notifications read).
       *
       * Query; access `authenticated`. Runs as `notifications/inbox:count` (POST /api/run/notifications/inbox/count).
       */
      count: FunctionReference<
        "query",
        "public",
        {
          read?: "read" | "unread" | null;
          kind?: "orders" | "payments" | "payouts" | "reviews" | null;
          from?: number | null;
          to?: number | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * How many of the caller's notifications are unread (administrators:
       * with the admin inbox's), counted up to 100: {count, more} (more: there
       * are more than 100).
       *
       * Query; access `authenticated`. Runs as `notifications/inbox:countUnread` (POST /api/run/notifications/inbox/countUnread).
       */
      countUnread: FunctionReference<
        "query",
        "public",
        Record<string, never>,
        {
          count: number;
          more: boolean;
        }
      >;
      /**
       * The caller's notifications, newest first (sort oldest: oldest first);
       * administrators also see the admin inbox. Optional filters: read
       * (read|unread; unreadOnly true is read=unread), kind
       * (orders|payments|payouts|reviews), from and to (creation time, epoch
       * ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT
       * range_too_large). With read or kind, a page reads at most 10,000
       * notifications: it may hold fewer than asked and not be done (go on
       * with its cursor).
       *
       * Query; access `authenticated`. Runs as `notifications/inbox:list` (POST /api/run/notifications/inbox/list).
       */
      list: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
          unreadOnly?: boolean | null;
          read?: "read" | "unread" | null;
          kind?: "orders" | "payments" | "payouts" | "reviews" | null;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | null;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          recipientType: string;
          type: string;
          title: string;
          body: string;
          priority: string;
          data: Record<string, string>;
          params?: Record<string, string>;
          recipientRole?: string;
          read: boolean;
          readAt?: number | null;
          eventTime: number;
        }>
      >;
      /**
       * Mark one of the caller's notifications (or, for administrators, an
       * admin-inbox one) read.
       *
       * Mutation; access `authenticated`. Runs as `notifications/inbox:markRead` (POST /api/run/notifications/inbox/markRead).
       */
      markRead: FunctionReference<
        "mutation",
        "public",
        {
          notificationId: string;
        },
        null
      >;
    };
  };
  stores: {
    catalog: {
      /**
       * A store, or null.
       *
       * Query; access `public`. Runs as `stores/catalog:getStore` (POST /api/run/stores/catalog/getStore).
       */
      getStore: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
        } | null
      >;
      /**
       * The caller's stores (those they own) by name, as listStores shows them
       * (paginated).
       *
       * Query; access `authenticated`. Runs as `stores/catalog:listMyStores` (POST /api/run/stores/catalog/listMyStores).
       */
      listMyStores: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
        }>
      >;
      /**
       * The owner changes their store's name, phone or open flag; returns the
       * store.
       *
       * Mutation; access `store_owner`. Runs as `stores/catalog:updateMyStore` (POST /api/run/stores/catalog/updateMyStore).
       */
      updateMyStore: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          name?: string | null;
          ownerPhone?: string | null;
          isOpen?: boolean | null;
        },
        {
          _id: string;
          name: string;
          ownerUserId: string;
          ownerName?: string;
          ownerPhone?: string;
          primaryCategoryId: string | null;
          tier: string;
          isActive: boolean;
          isOpen: boolean;
          city: string | null;
          area: string | null;
          latitude: number | null;
          longitude: number | null;
          _creationTime: number;
        } | null
      >;
    };
    disputes: {
      /**
       * The store's disputes (paginated), optionally of one status and opened
       * from `from` to `to`, sorted as admins.disputes.listDisputes (sort due,
       * newest or oldest, with the same rules).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/disputes:listDisputes` (POST /api/run/stores/disputes/listDisputes).
       */
      listDisputes: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          status?: "open" | "won" | "lost" | "closed" | null;
          from?: number | null;
          to?: number | null;
          sort?: "due" | "newest" | "oldest" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          disputeId: string;
          paymentIntentId: string;
          orderId: string;
          storeId: string;
          amount: number;
          currency: string;
          reason: string;
          status: "open" | "won" | "lost";
          dueBy: number;
          openedAt: number;
          closedAt: number | null;
        }>
      >;
    };
    notifications: {
      /**
       * The notifications sent about one of the store's orders (store owner or
       * administrator), newest first, at most 50: type, title and body
       * (English), params, recipientRole (customer, store_owner, admin),
       * eventTime, read. Those to the administrators' inbox (recipientRole
       * admin) are listed to administrators only.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/notifications:listForOrder` (POST /api/run/stores/notifications/listForOrder).
       */
      listForOrder: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          orderId: string;
        },
        Array<{
          _id: string;
          type: string;
          title: string;
          body: string;
          params?: Record<string, string>;
          recipientRole: string;
          eventTime: number;
          read: boolean;
        }>
      >;
    };
    orders: {
      /**
       * How many orders listStoreOrders lists with the same filters, up to
       * 10000 (then capped: true).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/orders:countStoreOrders` (POST /api/run/stores/orders/countStoreOrders).
       */
      countStoreOrders: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled" | null;
          from?: number | null;
          to?: number | null;
          number?: string | null;
          customerId?: string | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * One order as its page shows it (store owner or administrator): the
       * order with names, the commission's rate and fixed fee, its payment's
       * disputes, and who moved it (statusHistory by and role: customer,
       * store, administrator, system; byName to administrators and for the
       * owner's own moves), and who resolved a held payment
       * (paymentReview.resolvedBy; resolvedByName, the administrator's name,
       * to administrators only). An order held for review is NOT_FOUND to its
       * store.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/orders:getOrder` (POST /api/run/stores/orders/getOrder).
       */
      getOrder: FunctionReference<
        "query",
        "public",
        {
          orderId: string;
        },
        {
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        } | null
      >;
      /**
       * A store's sales (store owner or administrator) of the orders placed
       * from `from` to `to` (epoch ms, inclusive; at most 366 days, else
       * INVALID_ARGUMENT range_too_large) by Dubai day or week (granularity
       * day|week, weeks from Monday; default day), computed from the orders:
       * buckets {start, orders, gross, earnings, commission, refunded,
       * cancelled} (AED; cancelled orders counted apart and in no sum; orders
       * held for review left out; refunded of an order paid in another
       * currency is its AED counterpart at the accepted rate, left out when
       * the order has no amount paid), totals, byStatus (the period's orders
       * by their status now) and topProducts (10 by revenue: productId, name,
       * quantity, revenue). More than 20,000 orders in the period:
       * FAILED_PRECONDITION too_many_orders.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/orders:getSalesSummary` (POST /api/run/stores/orders/getSalesSummary).
       */
      getSalesSummary: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          from: number;
          to: number;
          granularity?: "day" | "week" | null;
        },
        {
          from: number;
          to: number;
          granularity: string;
          buckets: Array<{
            start: number;
            orders: number;
            gross: number;
            earnings: number;
            commission: number;
            refunded: number;
            cancelled: number;
          }>;
          totals: {
            orders: number;
            gross: number;
            earnings: number;
            commission: number;
            refunded: number;
            cancelled: number;
          };
          byStatus: Record<string, number>;
          topProducts: Array<{
            productId: string;
            name: string;
            quantity: number;
            revenue: number;
          }>;
        } | null
      >;
      /**
       * A store's orders (store owner or administrator), newest first or as
       * sort says (oldest, total_desc, total_asc; a cursor serves only its own
       * sort; the total sorts go with no other filter: with status, from/to,
       * number or customerId INVALID_ARGUMENT details.reason sort_with_filter,
       * details.filters naming them), optionally of one status, created
       * from..to (epoch ms, inclusive), of one order number (six hexadecimal
       * digits, optionally after #: several orders may share one) or one
       * customer; with the customer's name and the delivery places' names.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/orders:listStoreOrders` (POST /api/run/stores/orders/listStoreOrders).
       */
      listStoreOrders: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled" | null;
          from?: number | null;
          to?: number | null;
          number?: string | null;
          customerId?: string | null;
          sort?: "newest" | "oldest" | "total_desc" | "total_asc" | null;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          number: string;
          customerId: string;
          customerName?: string;
          storeId: string;
          storeName: string;
          items: Array<{
            productId: string;
            name: string;
            unitPrice: number;
            quantity: number;
            lineTotal: number;
          }>;
          subtotal: number;
          deliveryFee: number;
          total: number;
          platformCommission?: number | null;
          storeEarnings?: number | null;
          amountPaid?: number | null;
          deliveryAddress: {
            fullAddress: string;
            city: string;
            area: string;
            phoneNumber: string;
            cityName?: string;
            cityNameArabic?: string;
            areaName?: string;
          };
          deliveryType: string;
          paymentMethod: string;
          paymentStatus: string;
          paymentIntentId: string;
          paymentReview?: {
            reason: string;
            expectedAmount: number;
            amountPaid: number;
            currency: string;
            resolvedBy?: string;
            resolvedByName?: string;
            resolvedAt?: number;
          } | null;
          status: string;
          statusHistory: Array<{
            status: string;
            at: number;
            by?: string;
            role?: "customer" | "store" | "administrator" | "system";
            byName?: string;
          }>;
          updatedAt: number;
          refundedAmount: number;
          refundStatus?: "partially_refunded" | "refunded";
          refunds: Array<{
            refundId: string;
            amount: number;
            lines?: Array<{
              productId: string;
              quantity: number;
            }>;
            reason: string;
            origin: "admin" | "store" | "cancellation" | "processor";
            status: "requested" | "succeeded" | "failed";
            failureReason?: string;
            requestedAt: number;
            settledAt?: number;
          }>;
          refundableAmount?: number | null;
          commissionRate?: number | null;
          commissionFixedFee?: number | null;
          disputes?: Array<{
            disputeId: string;
            amount: number;
            currency: string;
            status: string;
          }>;
        }>
      >;
      /**
       * Refund one of the store's orders, fully or partly, as
       * admins.orders.refundOrder does (store owner: paid orders not held by
       * the platform, from confirmed until 14 days after delivery; later
       * FAILED_PRECONDITION details.reason refund_window_closed with
       * deliveredAt and refundableUntil).
       *
       * Mutation; access `store_owner_or_admin`. Runs as `stores/orders:refundOrder` (POST /api/run/stores/orders/refundOrder).
       */
      refundOrder: FunctionReference<
        "mutation",
        "public",
        {
          orderId: string;
          reason: string;
          amount?: number | null;
          lines?: Array<{
            productId: string;
            quantity: number;
          }> | null;
        },
        {
          refundId: string;
          status: "requested" | "succeeded" | "failed";
          amount: number;
          refundableAmount: number;
        } | null
      >;
      /**
       * Move an order along its status machine (store owner or administrator):
       * one step at a time along pending, confirmed, preparing,
       * out_for_delivery, delivered, or to cancelled from any status before
       * delivered. Any other move is FAILED_PRECONDITION (details.reason
       * status_not_allowed) naming the statuses allowed from the current one
       * (details.current, details.requested, details.allowed).
       *
       * Mutation; access `store_owner_or_admin`. Runs as `stores/orders:updateOrderStatus` (POST /api/run/stores/orders/updateOrderStatus).
       */
      updateOrderStatus: FunctionReference<
        "mutation",
        "public",
        {
          orderId: string;
          status: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled";
        },
        null
      >;
    };
    payouts: {
      /**
       * How many payouts stores.payouts.listPayouts lists with the same
       * filters (status, from, to): count, at most 10,000 (then capped is
       * true).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/payouts:countPayouts` (POST /api/run/stores/payouts/countPayouts).
       */
      countPayouts: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          status?: "requested" | "approved" | "processing" | "completed" | "cancelled" | "failed" | null;
          from?: number | null;
          to?: number | null;
        },
        {
          count: number;
          capped: boolean;
        }
      >;
      /**
       * The store's saved payout bank account (IBAN, ibanLast4, bankName,
       * accountHolderName, updatedAt), null when none is saved or it was saved
       * by someone who no longer owns the store (after a handover the former
       * owner's account is never offered).
       *
       * Query; access `store_owner`. Runs as `stores/payouts:getBankAccount` (POST /api/run/stores/payouts/getBankAccount).
       */
      getBankAccount: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          IBAN: string;
          ibanLast4: string;
          bankName: string;
          accountHolderName: string;
          updatedAt: number;
        } | null
      >;
      /**
       * The store's payouts (paginated), with their history: of one status
       * when given, requested from `from` to `to` when given (epoch ms,
       * inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large);
       * sort newest (default), oldest, amount_desc or amount_asc (by requested
       * amount; not with a date range: INVALID_ARGUMENT sort_with_range).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/payouts:listPayouts` (POST /api/run/stores/payouts/listPayouts).
       */
      listPayouts: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          paginationOpts: PaginationOptions;
          status?: "requested" | "approved" | "processing" | "completed" | "cancelled" | "failed" | null;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | "amount_desc" | "amount_asc" | null;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          storeId: string;
          storeName: string;
          storeOwnerName: string;
          storeOwnerPhone: string;
          requestedAmount: number;
          processingFee: number;
          netAmount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          status: string;
          requestDate: number;
          approvedDate: number | null;
          requestedBy: string;
          requestedByName?: string | null;
          currentWalletBalance: number;
          totalEarnings: number;
          totalOrders: number;
          handedOverAt: number | null;
          handedOver: boolean;
          approvedBy: string | null;
          approvedByName?: string | null;
          processingDate: number | null;
          processingMethod: string | null;
          transactionReference: string | null;
          completedDate: number | null;
          rejectedDate: number | null;
          rejectionReason: string | null;
          failedDate: number | null;
          failureReason: string | null;
          balanceRestored: boolean;
          adminNotes?: string | null;
          history: Array<{
            action: string;
            from: string | null;
            to: string;
            by: string;
            byName?: string | null;
            at: number;
            notes?: string | null;
            reason?: string | null;
            method?: string | null;
            reference?: string | null;
            restoreBalance?: boolean | null;
            handoverConfirmed?: boolean | null;
          }>;
        }>
      >;
      /**
       * Request a payout of the store's available balance to a UAE bank
       * account; returns the payout id. The amount lies between the
       * configuration's minPayoutAmount and maxPayoutAmount (defaults 100 and
       * 50,000 AED) and exceeds the payoutProcessingFee (default 2 AED), which
       * is kept from it; outside them, FAILED_PRECONDITION with the settings
       * and the available balance in its message and details. Earnings reach
       * the available balance pendingBalanceHoldDays (default 7) after
       * delivery; until then a request they would cover is FAILED_PRECONDITION
       * insufficient_balance, saying when the oldest held earning is released
       * (details.nextReleaseAt). The amount leaves the available balance at
       * once; the payout then goes requested, approved, processing, completed
       * (or cancelled when rejected, failed). saveBankAccount: true also saves
       * bankDetails as the store's bank account
       * (stores.payouts.setBankAccount), in the same transaction.
       *
       * Mutation; access `store_owner`. Runs as `stores/payouts:requestPayout` (POST /api/run/stores/payouts/requestPayout).
       */
      requestPayout: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          /** AED, at most two decimals */
          amount: number;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
          saveBankAccount?: boolean | null;
        },
        string
      >;
      /**
       * Save the store's payout bank account (bankDetails as requestPayout's;
       * the IBAN a valid UAE IBAN, else INVALID_ARGUMENT at bankDetails.IBAN);
       * returns it. The store's owner is told (event
       * payouts.bank_account_changed). A save whose access check the store's
       * handover to another owner overtook is PERMISSION_DENIED
       * (details.reason store_handed_over), as requestPayout.
       *
       * Mutation; access `store_owner`. Runs as `stores/payouts:setBankAccount` (POST /api/run/stores/payouts/setBankAccount).
       */
      setBankAccount: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          bankDetails: {
            IBAN: string;
            bankName: string;
            accountHolderName: string;
          };
        },
        {
          IBAN: string;
          ibanLast4: string;
          bankName: string;
          accountHolderName: string;
          updatedAt: number;
        } | null
      >;
    };
    products: {
      /**
       * Add a product to the caller's store (a store keeps at most 1000
       * products: beyond, FAILED_PRECONDITION with details.reason
       * too_many_products).
       *
       * Mutation; access `store_owner`. Runs as `stores/products:createProduct` (POST /api/run/stores/products/createProduct).
       */
      createProduct: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          name: string;
          /** AED, at most two decimals */
          price: number;
          isAvailable?: boolean | null;
        },
        string
      >;
      /**
       * A store's products in the order they were added, all in one array: at
       * most 1000 (the products a store keeps).
       *
       * Query; access `public`. Runs as `stores/products:listProducts` (POST /api/run/stores/products/listProducts).
       *
       * @deprecated replaced by stores.products.listProductsPaginated (the
       * same products, in pages); kept at least 30 days after the release that
       * added it and until no client calls it, then removed in a major release
       * of the public contract.
       */
      listProducts: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        Array<{
          _id: string;
          storeId: string;
          name: string;
          price: number;
          isAvailable: boolean;
          _creationTime: number;
        }>
      >;
      /**
       * A store's products in the order they were added (paginated); optional:
       * sort (added, newest, price, price_desc), available (true or false),
       * search (a part of the name, any case, 2 to 100 characters).
       *
       * Query; access `public`. Runs as `stores/products:listProductsPaginated` (POST /api/run/stores/products/listProductsPaginated).
       */
      listProductsPaginated: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          paginationOpts: PaginationOptions;
          search?: string | null;
          available?: boolean | null;
          sort?: "added" | "newest" | "price" | "price_desc" | null;
        },
        PaginationResult<{
          _id: string;
          storeId: string;
          name: string;
          price: number;
          isAvailable: boolean;
          _creationTime: number;
        }>
      >;
      /**
       * Change a product's name, price or availability (orders and cart lines
       * keep their prices); returns the product.
       *
       * Mutation; access `store_owner`. Runs as `stores/products:updateProduct` (POST /api/run/stores/products/updateProduct).
       */
      updateProduct: FunctionReference<
        "mutation",
        "public",
        {
          productId: string;
          name?: string | null;
          /** AED, at most two decimals */
          price?: number | null;
          isAvailable?: boolean | null;
        },
        {
          _id: string;
          storeId: string;
          name: string;
          price: number;
          isAvailable: boolean;
          _creationTime: number;
        } | null
      >;
    };
    reviews: {
      /**
       * Review a store as the caller (1 to 5 stars, a title or a comment, up
       * to 10 of one's own photos; verified purchase decided by the service).
       *
       * Mutation; access `customer`. Runs as `stores/reviews:addReview` (POST /api/run/stores/reviews/addReview).
       */
      addReview: FunctionReference<
        "mutation",
        "public",
        {
          storeId: string;
          orderId?: string | null;
          rating: number;
          title?: string | null;
          /** multi-line text */
          comment?: string | null;
          photoIds?: Array<string> | null;
        },
        {
          reviewId: string;
          message: string;
        } | null
      >;
      /**
       * The store's one response to a review (its owner only).
       *
       * Mutation; access `store_owner`. Runs as `stores/reviews:addStoreResponse` (POST /api/run/stores/reviews/addStoreResponse).
       */
      addStoreResponse: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          /** multi-line text */
          comment: string;
        },
        {
          comment: string;
          respondedAt: number;
          updatedAt?: number;
        } | null
      >;
      /**
       * Delete one's own review with its votes and flags.
       *
       * Mutation; access `customer`. Runs as `stores/reviews:deleteReview` (POST /api/run/stores/reviews/deleteReview).
       */
      deleteReview: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
        },
        null
      >;
      /**
       * Report a review to the moderators (one flag per customer per review).
       *
       * Mutation; access `customer`. Runs as `stores/reviews:flagReview` (POST /api/run/stores/reviews/flagReview).
       */
      flagReview: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          reason: "spam" | "inappropriate" | "fake" | "offensive" | "irrelevant" | "other";
          /** multi-line text */
          description?: string | null;
        },
        {
          flagId: string;
          message: string;
        } | null
      >;
      /**
       * The caller's reviews, newest first (paginated), with their stores and
       * store responses.
       *
       * Query; access `customer`. Runs as `stores/reviews:getCustomerReviews` (POST /api/run/stores/reviews/getCustomerReviews).
       */
      getCustomerReviews: FunctionReference<
        "query",
        "public",
        {
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          storeId: string;
          rating: number;
          title?: string;
          comment?: string;
          photoUrls: Array<string>;
          isVerifiedPurchase: boolean;
          helpfulCount: number;
          notHelpfulCount: number;
          storeResponse?: {
            comment: string;
            respondedAt: number;
            updatedAt?: number;
          } | null;
          customer: {
            _id: string;
            name: string;
          };
          userVote?: boolean | null;
          isEdited: boolean;
          updatedAt: number;
          store: {
            _id: string;
            name: string;
          };
          isHidden: boolean;
          canEdit: boolean;
          canDelete: boolean;
          moderation?: {
            visible: boolean;
            adminUserId: string;
            adminName?: string;
            at: number;
            flagId?: string;
            adminNotes?: string;
          } | null;
          editHistory?: Array<{
            rating: number;
            title: string;
            comment: string;
            photoIds: Array<string>;
            writtenAt: number;
            replacedAt: number;
          }>;
          orderId?: string;
        }>
      >;
      /**
       * A store's rating by week (store owner or administrator): the visible
       * reviews written from `from` to `to` (epoch ms, inclusive; at most 366
       * days, else INVALID_ARGUMENT range_too_large) by Dubai week from
       * Monday, weeks {weekStart, count, average (null without reviews)}. More
       * than 20,000 reviews in the period: FAILED_PRECONDITION
       * too_many_reviews.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/reviews:getRatingHistory` (POST /api/run/stores/reviews/getRatingHistory).
       */
      getRatingHistory: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          from: number;
          to: number;
        },
        {
          from: number;
          to: number;
          weeks: Array<{
            weekStart: number;
            count: number;
            average: number | null;
          }>;
        } | null
      >;
      /**
       * One review with its customer, store, photo URLs, canEdit, canDelete
       * and the caller's vote, or null. Administrators also get its moderation
       * (the last decision to hide or show it: visible, adminUserId, adminName
       * when the administrator's token stated one, at, flagId, adminNotes) and
       * edit history.
       *
       * Query; access `public`. Runs as `stores/reviews:getReview` (POST /api/run/stores/reviews/getReview).
       */
      getReview: FunctionReference<
        "query",
        "public",
        {
          reviewId: string;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          rating: number;
          title?: string;
          comment?: string;
          photoUrls: Array<string>;
          isVerifiedPurchase: boolean;
          helpfulCount: number;
          notHelpfulCount: number;
          storeResponse?: {
            comment: string;
            respondedAt: number;
            updatedAt?: number;
          } | null;
          customer: {
            _id: string;
            name: string;
          };
          userVote?: boolean | null;
          isEdited: boolean;
          updatedAt: number;
          store: {
            _id: string;
            name: string;
          };
          isHidden: boolean;
          canEdit: boolean;
          canDelete: boolean;
          moderation?: {
            visible: boolean;
            adminUserId: string;
            adminName?: string;
            at: number;
            flagId?: string;
            adminNotes?: string;
          } | null;
          editHistory?: Array<{
            rating: number;
            title: string;
            comment: string;
            photoIds: Array<string>;
            writtenAt: number;
            replacedAt: number;
          }>;
          orderId?: string;
        } | null
      >;
      /**
       * A store's review statistics (count, average, distribution, verified
       * count, Bayesian average).
       *
       * Query; access `public`. Runs as `stores/reviews:getStoreReviewStats` (POST /api/run/stores/reviews/getStoreReviewStats).
       */
      getStoreReviewStats: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          storeId: string;
          totalReviews: number;
          ratingSum: number;
          averageRating: number;
          ratingDistribution: Record<string, number>;
          verifiedReviews: number;
          bayesianAverage: number;
          bayesianPrior: {
            reviews: number;
            mean: number;
          };
          updatedAt: number;
        } | null
      >;
      /**
       * A store's visible reviews, paginated: sortBy newest (default), oldest,
       * highest_rating, lowest_rating or most_helpful; ratingFilter;
       * verifiedOnly; from and to (written from..to, epoch ms, inclusive; at
       * most 366 days apart, else INVALID_ARGUMENT range_too_large; only with
       * sortBy newest or oldest, else INVALID_ARGUMENT sort_with_filter).
       *
       * Query; access `public`. Runs as `stores/reviews:getStoreReviews` (POST /api/run/stores/reviews/getStoreReviews).
       */
      getStoreReviews: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          paginationOpts: PaginationOptions;
          sortBy?: "newest" | "oldest" | "highest_rating" | "lowest_rating" | "most_helpful" | null;
          ratingFilter?: number | null;
          verifiedOnly?: boolean | null;
          from?: number | null;
          to?: number | null;
        },
        PaginationResult<{
          _id: string;
          _creationTime: number;
          storeId: string;
          rating: number;
          title?: string;
          comment?: string;
          photoUrls: Array<string>;
          isVerifiedPurchase: boolean;
          helpfulCount: number;
          notHelpfulCount: number;
          storeResponse?: {
            comment: string;
            respondedAt: number;
            updatedAt?: number;
          } | null;
          customer: {
            _id: string;
            name: string;
          };
          userVote?: boolean | null;
          isEdited: boolean;
          updatedAt: number;
        }>
      >;
      /**
       * Change the given fields of one's own review (previous versions are
       * kept); returns the review.
       *
       * Mutation; access `customer`. Runs as `stores/reviews:updateReview` (POST /api/run/stores/reviews/updateReview).
       */
      updateReview: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          rating?: number | null;
          title?: string | null;
          /** multi-line text */
          comment?: string | null;
          photoIds?: Array<string> | null;
        },
        {
          _id: string;
          _creationTime: number;
          storeId: string;
          rating: number;
          title?: string;
          comment?: string;
          photoUrls: Array<string>;
          isVerifiedPurchase: boolean;
          helpfulCount: number;
          notHelpfulCount: number;
          storeResponse?: {
            comment: string;
            respondedAt: number;
            updatedAt?: number;
          } | null;
          customer: {
            _id: string;
            name: string;
          };
          userVote?: boolean | null;
          isEdited: boolean;
          updatedAt: number;
          store: {
            _id: string;
            name: string;
          };
          isHidden: boolean;
          canEdit: boolean;
          canDelete: boolean;
          moderation?: {
            visible: boolean;
            adminUserId: string;
            adminName?: string;
            at: number;
            flagId?: string;
            adminNotes?: string;
          } | null;
          editHistory?: Array<{
            rating: number;
            title: string;
            comment: string;
            photoIds: Array<string>;
            writtenAt: number;
            replacedAt: number;
          }>;
          orderId?: string;
        } | null
      >;
      /**
       * Change the store's response to a review (its owner only).
       *
       * Mutation; access `store_owner`. Runs as `stores/reviews:updateStoreResponse` (POST /api/run/stores/reviews/updateStoreResponse).
       */
      updateStoreResponse: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          /** multi-line text */
          comment: string;
        },
        {
          comment: string;
          respondedAt: number;
          updatedAt?: number;
        } | null
      >;
      /**
       * Vote a review helpful or not (one vote per customer, changeable; never
       * one's own review).
       *
       * Mutation; access `customer`. Runs as `stores/reviews:voteOnReview` (POST /api/run/stores/reviews/voteOnReview).
       */
      voteOnReview: FunctionReference<
        "mutation",
        "public",
        {
          reviewId: string;
          isHelpful: boolean;
        },
        {
          reviewId: string;
          helpfulCount: number;
          notHelpfulCount: number;
          userVote: boolean;
        } | null
      >;
    };
    wallet: {
      /**
       * The store's wallet statement from `from` to `to` (epoch ms, inclusive;
       * at most 366 days, else INVALID_ARGUMENT range_too_large; at most 5,000
       * entries, else FAILED_PRECONDITION too_many_entries): openingBalance,
       * every change of the balances in order (earnings, releases,
       * adjustments, payouts, refunds, disputes) with its signed amount and
       * the running balance (available + pending + disputed, which may be
       * negative: a debt), and closingBalance, in AED. A payout's entry shows
       * the payout's status now. The same as CSV: GET
       * /api/stores/{storeId}/statement.csv?from=&to=.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/wallet:getStatement` (POST /api/run/stores/wallet/getStatement).
       */
      getStatement: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          from: number;
          to: number;
        },
        {
          storeId: string;
          from: number;
          to: number;
          openingBalance: number;
          entries: Array<{
            seq: number;
            at: number;
            kind: string;
            description: string;
            amount: number;
            balance: number;
            availableChange: number;
            pendingChange: number;
            disputedChange: number;
            availableBalance: number;
            pendingBalance: number;
            disputedBalance: number;
            status: string;
            transactionId?: string;
            adjustmentId?: string;
            payoutId?: string;
            orderId?: string;
            refundId?: string;
            disputeId?: string;
          }>;
          closingBalance: number;
        } | null
      >;
      /**
       * What the store's pending balance will release, by Asia/Dubai calendar
       * day of the release: releases [{day (YYYY-MM-DD), at (epoch ms of the
       * earliest release that day), amount (AED still held of the earnings
       * released that day, after early releases and deductions), count}],
       * earliest day first. At most 5,000 held earnings are read, oldest
       * first: more is true when there are others.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/wallet:getUpcomingReleases` (POST /api/run/stores/wallet/getUpcomingReleases).
       */
      getUpcomingReleases: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          releases: Array<{
            day: string;
            at: number;
            amount: number;
            count: number;
          }>;
          more: boolean;
        } | null
      >;
      /**
       * The store's wallet: balances and statistics. availableBalance may be
       * negative after refunds or lost disputes (a debt, also as debt: later
       * releases repay it first, and no payout can be requested meanwhile);
       * disputedBalance is the store's share of open disputes.
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/wallet:getWallet` (POST /api/run/stores/wallet/getWallet).
       */
      getWallet: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
        },
        {
          _id: string;
          storeId: string;
          availableBalance: number;
          pendingBalance: number;
          totalEarnings: number;
          totalPayouts: number;
          lastPayoutDate: number | null;
          totalOrders: number;
          disputedBalance: number;
          debt: number;
        } | null
      >;
      /**
       * The store's statement entries, newest first (paginated): every change
       * of its balances as stores.wallet.getStatement gives it (kind, signed
       * changes of available, pending and disputed, the balances after it and
       * their sum, the running balance; a payout's entry with the payout's
       * status now), an earning's with releaseAt (when it is released). An
       * administrator's early release (move_pending_to_available) is an entry
       * too. To administrators, an adjustment's entry names who made it:
       * adjustedBy (the administrator's id) and adjustedByName (their name,
       * when their token stated one); the store's owner gets neither
       * (docs/adr/0168). Optional kind (an entry kind), orderId (the entries
       * of one order), from and to (the entries made then: epoch ms,
       * inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large)
       * and sort (newest, the default, or oldest).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/wallet:listStatementEntries` (POST /api/run/stores/wallet/listStatementEntries).
       */
      listStatementEntries: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          paginationOpts: PaginationOptions;
          kind?: string | null;
          orderId?: string | null;
          from?: number | null;
          to?: number | null;
          sort?: "newest" | "oldest" | null;
        },
        PaginationResult<{
          seq: number;
          at: number;
          kind: string;
          description: string;
          amount: number;
          balance: number;
          availableChange: number;
          pendingChange: number;
          disputedChange: number;
          availableBalance: number;
          pendingBalance: number;
          disputedBalance: number;
          status: string;
          transactionId?: string;
          adjustmentId?: string;
          payoutId?: string;
          orderId?: string;
          refundId?: string;
          disputeId?: string;
          releaseAt?: number | null;
          adjustedBy?: string | null;
          adjustedByName?: string | null;
        }>
      >;
      /**
       * The store's wallet transactions, newest first (paginated). metadata is
       * for administrators only: an adjustment's adminUserId and, when the
       * administrator's token stated a name, adminName (docs/adr/0168).
       *
       * Query; access `store_owner_or_admin`. Runs as `stores/wallet:listTransactions` (POST /api/run/stores/wallet/listTransactions).
       */
      listTransactions: FunctionReference<
        "query",
        "public",
        {
          storeId: string;
          paginationOpts: PaginationOptions;
        },
        PaginationResult<{
          _id: string;
          type: string;
          amount: number;
          status: string;
          description: string;
          _creationTime: number;
          releaseDate?: number | null;
          metadata?: Record<string, string>;
        }>
      >;
    };
  };
};

/** The type of `api`. */
export type Api = typeof api;
