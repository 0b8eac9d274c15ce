// The UAE IBAN rule the payouts service applies (services/payouts/iban.go):
// "AE", two check digits and 19 digits, 23 characters in all, and ISO 13616's
// mod-97 check. Checked here before sending, so a typing mistake is caught at
// the field; the server checks again.

export type IBANProblem = "country" | "length" | "digits" | "checksum";

export function normalizeIBAN(s: string): string {
  return s.replace(/\s+/g, "").toUpperCase();
}

export function checkUAEIBAN(s: string): IBANProblem | null {
  const iban = normalizeIBAN(s);
  if (!iban.startsWith("AE")) return "country";
  if (iban.length !== 23) return "length";
  if (!/^AE\d{21}$/.test(iban)) return "digits";
  return mod97(iban) === 1 ? null : "checksum";
}

function mod97(iban: string): number {
  let r = 0;
  for (const c of iban.slice(4) + iban.slice(0, 4)) {
    if (c >= "0" && c <= "9") r = (r * 10 + (c.charCodeAt(0) - 48)) % 97;
    else r = (r * 100 + (c.charCodeAt(0) - 55)) % 97;
  }
  return r;
}
