// The console's settings, served by the gateway (GET /console/config.json,
// from CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID): where production
// sign-in goes. Without them the console offers only the token screen
// (development tokens, `make console`).

export interface OIDCSettings {
  issuer: string;
  clientId: string;
}

export interface Settings {
  oidc: OIDCSettings | null;
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
