// Production sign-in: OpenID Connect authorization code with PKCE against the
// identity provider that issues the platform's tokens (oidc-client-ts). Loaded
// only when the gateway names a provider, so development builds of the first
// screen do not carry it.
//
// Seam for the next step (issue 20, "Production"): silent renewal before the
// token expires, and the test against a real provider on loopback.
import { UserManager, WebStorageStateStore } from "oidc-client-ts";
import type { OIDCSettings } from "./settings";

function manager(s: OIDCSettings, area: string): UserManager {
  return new UserManager({
    authority: s.issuer,
    client_id: s.clientId,
    redirect_uri: `${window.location.origin}/${area}/`,
    response_type: "code",
    scope: "openid profile",
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
