// The console's settings, served by the gateway (GET /console/config.json,
// from CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID): where production
// sign-in goes, and whether the gateway takes development tokens
// (devSignIn: its development secret, no identity provider's keys). Only
// then does the console take a sign-in link (#token=, `make console`) or a
// pasted token; elsewhere only the identity provider signs in.

export interface OIDCSettings {
  issuer: string;
  clientId: string;
}

export interface Settings {
  oidc: OIDCSettings | null;
  /** The gateway takes development tokens: sign-in links and the token screen are on. */
  devSignIn?: boolean;
  /** The settings could not be read: whether a provider is configured is unknown. */
  unknown?: true;
}

let pending: Promise<Settings> | null = null;

export function loadSettings(): Promise<Settings> {
  pending ??= fetch("/console/config.json", { credentials: "omit", cache: "no-cache" })
    .then((r) => (r.ok ? (r.json() as Promise<Settings>) : { oidc: null, unknown: true as const }))
    .catch(() => ({ oidc: null, unknown: true as const }));
  return pending;
}
