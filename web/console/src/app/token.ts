// The bearer token the console acts with: a JWT whose claims say who is
// signed in (sub), with which roles, until when (exp). The browser reads the
// claims only to lay out the screens; the gateway verifies every call.

export interface Identity {
  sub: string;
  roles: string[];
  /** The person's name (the OpenID Connect `name` claim), when the token has one. */
  name?: string;
  /** Expiry, epoch milliseconds. */
  expires: number;
}

export type TokenProblem = { kind: "malformed"; reason: string } | { kind: "expired"; at: number };

function base64UrlDecode(s: string): string {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The identity a token claims, or why it cannot be used. */
export function readToken(raw: string, now = Date.now()): Identity | TokenProblem {
  const token = raw.trim().replace(/^Bearer\s+/i, "");
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) {
    return { kind: "malformed", reason: "a token is three base64url parts separated by dots" };
  }
  let claims: unknown;
  try {
    claims = JSON.parse(base64UrlDecode(parts[1]));
  } catch {
    return { kind: "malformed", reason: "its claims are not JSON" };
  }
  if (typeof claims !== "object" || claims === null) return { kind: "malformed", reason: "its claims are not an object" };
  const c = claims as Record<string, unknown>;
  if (typeof c.sub !== "string" || c.sub === "") return { kind: "malformed", reason: "it names no subject (sub)" };
  if (typeof c.exp !== "number") return { kind: "malformed", reason: "it has no expiry (exp)" };
  const roles = Array.isArray(c.roles) ? c.roles.filter((r): r is string => typeof r === "string") : [];
  const expires = c.exp * 1000;
  if (expires <= now) return { kind: "expired", at: expires };
  const name = typeof c.name === "string" && c.name.trim() !== "" ? c.name.trim().slice(0, 100) : undefined;
  return { sub: c.sub, roles, expires, ...(name ? { name } : {}) };
}

export function isIdentity(v: Identity | TokenProblem): v is Identity {
  return (v as Identity).sub !== undefined;
}

/**
 * The token handed over in the URL's fragment (#token=...), as `make console`
 * prints it: fragments never reach a server or a Referer header. It is taken
 * out of the address bar and the history at once.
 */
export function takeTokenFromFragment(): string | null {
  const hash = window.location.hash.replace(/^#/, "");
  if (!hash) return null;
  const params = new URLSearchParams(hash);
  const token = params.get("token");
  if (token === null) return null;
  params.delete("token");
  const rest = params.toString();
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search + (rest ? "#" + rest : ""));
  return token;
}
