// Production sign-in: OpenID Connect authorization code with PKCE against the
// identity provider that issues the platform's tokens (oidc-client-ts). Loaded
// only when the gateway names a provider, so development builds of the first
// screen do not carry it.
//
// The session asks for offline_access: with the refresh token the provider
// gives, an expired session is renewed in the background (renew), so the
// screen and a form being filled stay as they are; only when the provider
// refuses does the sign-in dialog appear.
import { UserManager, WebStorageStateStore } from "oidc-client-ts";
import type { OIDCSettings } from "./settings";

function manager(s: OIDCSettings, area: string): UserManager {
  return new UserManager({
    authority: s.issuer,
    client_id: s.clientId,
    redirect_uri: `${window.location.origin}/${area}/`,
    response_type: "code",
    scope: "openid profile offline_access",
    // Renewal is on demand (renew, when the session's token runs out), never
    // in a hidden frame: the console's policy frames nothing.
    automaticSilentRenew: false,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
}

export async function startSignIn(s: OIDCSettings, area: string): Promise<void> {
  await manager(s, area).signinRedirect();
}

/** After the provider's redirect (?code=&state=): the access token, and the address bar cleaned. */
export async function finishSignIn(s: OIDCSettings, area: string): Promise<string | null> {
  const user = await manager(s, area).signinRedirectCallback();
  window.history.replaceState(window.history.state, "", window.location.pathname);
  return user.access_token || null;
}

export function isSignInCallback(): boolean {
  const q = new URLSearchParams(window.location.search);
  return q.has("code") && q.has("state");
}

/**
 * A fresh access token from the refresh token the provider gave at sign-in
 * (oidc-client-ts's signinSilent uses it: a fetch to the token endpoint, no
 * page or frame); null when there is none or the provider refuses it.
 */
export async function renew(s: OIDCSettings, area: string): Promise<string | null> {
  try {
    const m = manager(s, area);
    if (!(await m.getUser())?.refresh_token) return null;
    const user = await m.signinSilent();
    return user?.access_token || null;
  } catch {
    return null;
  }
}
