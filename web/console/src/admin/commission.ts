// The commission calculation of services/platformconfig/commission.go, in
// the browser, for the preview of figures not yet saved: integer fils, rates
// in millionths rounded half up, the same precedence (the store's primary
// category entry, then its tier's, then the defaults; field by field), the
// clamps, and never more than the order's total. The console's browser test
// holds it to getCommissionPreview.

export interface Entry {
  commissionRate?: number | null;
  fixedFee?: number | null;
  minimumCommission?: number | null;
}

export interface Config {
  defaultCommissionRate: number;
  fixedFeePerOrder: number;
  minimumCommission: number;
  maximumCommission: number;
  categoryCommissions: ({ categoryId: string } & Entry)[];
  storeTierCommissions: ({ tierName: string } & Entry)[];
}

export interface Preview {
  subtotal: number;
  deliveryFee: number;
  totalAmount: number;
  platformCommission: number;
  storeEarnings: number;
  commissionRate: number;
  fixedFee: number;
  commissionBreakdown: { percentageCommission: number; fixedFeeAmount: number; minimumApplied: boolean; maximumApplied: boolean };
}

const PPM = 1_000_000;
export const fils = (aed: number) => Math.round(aed * 100);
const aed = (f: number) => f / 100;
const ppm = (rate: number) => Math.round(rate * PPM);

function apply(amount: number, rate: number): number {
  const p = amount * rate;
  return p >= 0 ? Math.floor((p + PPM / 2) / PPM) : -Math.floor((-p + PPM / 2) / PPM);
}

export function preview(c: Config, store: { primaryCategoryId: string | null; tier: string }, subtotal: number, deliveryFee: number): Preview {
  let rate = ppm(c.defaultCommissionRate);
  let fixed = fils(c.fixedFeePerOrder);
  let minimum = fils(c.minimumCommission);
  const maximum = fils(c.maximumCommission);
  const cat = store.primaryCategoryId ? c.categoryCommissions.find((e) => e.categoryId === store.primaryCategoryId) : undefined;
  const tier = c.storeTierCommissions.find((e) => e.tierName === store.tier);
  // The least specific level first, so the most specific wins.
  for (const level of [tier, cat]) {
    if (!level) continue;
    if (level.commissionRate != null) rate = ppm(level.commissionRate);
    if (level.fixedFee != null) fixed = fils(level.fixedFee);
    if (level.minimumCommission != null) minimum = fils(level.minimumCommission);
  }
  const total = fils(subtotal) + fils(deliveryFee);
  const percentage = apply(total, rate);
  let platform = percentage + fixed;
  let minimumApplied = false;
  let maximumApplied = false;
  if (platform < minimum) [platform, minimumApplied] = [minimum, true];
  if (platform > maximum) [platform, maximumApplied] = [maximum, true];
  if (platform > total) platform = total;
  return {
    subtotal: aed(fils(subtotal)),
    deliveryFee: aed(fils(deliveryFee)),
    totalAmount: aed(total),
    platformCommission: aed(platform),
    storeEarnings: aed(total - platform),
    commissionRate: rate / PPM,
    fixedFee: aed(fixed),
    commissionBreakdown: { percentageCommission: aed(percentage), fixedFeeAmount: aed(fixed), minimumApplied, maximumApplied },
  };
}

/** A percentage as typed ("12.5") as the API's rate (0.125), to a millionth. */
export const rateOfPercent = (p: string) => Math.round(Number(p) * 10_000) / PPM;
/** The API's rate as a percentage to type. */
export const percentOfRate = (r: number) => String(Math.round(r * PPM) / 10_000);
