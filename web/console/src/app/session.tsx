import { Alert, Button, Center, Code, Group, Modal, Paper, Stack, Text, Textarea, Title } from "@mantine/core";
import type { ConvexReactClient } from "convex/react";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useI18n } from "./i18n";
import { LanguageSwitch } from "./LanguageSwitch";
import { Loading } from "../ui/Loading";
import { loadSettings, type Settings } from "./settings";
import { isIdentity, readToken, takeTokenFromFragment, type Identity } from "./token";

// The session: one token per browser tab (sessionStorage), taken from the
// sign-in link's fragment, the token screen or (production) the identity
// provider. Convex's client asks for it (fetchToken); when it has expired the
// client stops its socket and asks again, and the console then shows a
// sign-in dialog over the screen instead of leaving it, so a form being
// filled keeps its values and a mutation waiting to be sent is sent after.

const STORAGE_KEY = "marketplace.token";
const EXPIRY_MARGIN_MS = 5_000;
// How early a provider's token is renewed when Convex's client asks for a fresh one.
const RENEW_AHEAD_MS = 60_000;

export interface Session {
  identity: Identity;
  token: string;
  signOut(): void;
}

const Ctx = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(Ctx);
  if (!s) throw new Error("useSession outside a signed-in tree");
  return s;
}

function stored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function store(token: string | null) {
  try {
    if (token) sessionStorage.setItem(STORAGE_KEY, token);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // the tab keeps it in memory only
  }
}

/** Signs in (token screen, link, provider), then renders children with the session. */
export function SessionGate({ area, convex, children }: { area: string; convex: ConvexReactClient; children: ReactNode }) {
  const { t } = useI18n();
  // A sign-in link's token leaves the address bar at once, but is used only
  // once the settings say the gateway takes development tokens (and names no
  // identity provider): anywhere else a link would sign whoever opens it in
  // as someone else (the link's owner), so it is dropped and the sign-in
  // screen says links are off.
  const [linkToken, setLinkToken] = useState<string | null>(() => takeTokenFromFragment());
  const [linkRefused, setLinkRefused] = useState(false);
  const [token, setTokenState] = useState<string | null>(() => stored());
  const [settings, setSettings] = useState<Settings | null>(null);
  const [callbackError, setCallbackError] = useState<string | null>(null);
  const [serverRefused, setServerRefused] = useState(false);
  const [reauth, setReauth] = useState(false);
  const tokenRef = useRef(token);
  const waiters = useRef<((t: string | null) => void)[]>([]);

  const settingsRef = useRef<Settings | null>(null);
  useEffect(() => {
    void loadSettings().then((v) => {
      settingsRef.current = v;
      setSettings(v);
    });
  }, []);

  const setToken = useCallback((next: string | null) => {
    store(next);
    tokenRef.current = next;
    setTokenState(next);
    setServerRefused(false);
  }, []);

  useEffect(() => {
    if (!settings || linkToken === null) return;
    if (devSignIn(settings)) setToken(linkToken);
    else setLinkRefused(true);
    setLinkToken(null);
  }, [settings, linkToken, setToken]);

  // Coming back from the identity provider (?code=&state=).
  useEffect(() => {
    if (!settings?.oidc) return;
    void import("./oidc").then(async (oidc) => {
      if (!oidc.isSignInCallback()) return;
      try {
        const t = await oidc.finishSignIn(settings.oidc!, area);
        if (t) setToken(t);
      } catch (e) {
        setCallbackError(e instanceof Error ? e.message : String(e));
      }
    });
  }, [settings, area, setToken]);

  const identity = useMemo(() => (token ? readToken(token) : null), [token]);
  const signedIn = identity !== null && isIdentity(identity);

  // Convex's client asks for the token at sign-in and when the server says
  // it expired: an expired one waits for the sign-in dialog.
  const fetchToken = useCallback(async (args?: { forceRefreshToken: boolean }) => {
    const current = tokenRef.current;
    const oidc = settingsRef.current?.oidc;
    if (current) {
      // Convex's client asks for a fresh token shortly before this one
      // expires (forceRefreshToken): with a provider's refresh token, renew
      // then, so the socket never closes on an expired token.
      const margin = oidc && args?.forceRefreshToken ? RENEW_AHEAD_MS : EXPIRY_MARGIN_MS;
      const id = readToken(current, Date.now() + margin);
      if (isIdentity(id)) return current;
    }
    if (!current) return null;
    // Signed in through the identity provider: renew with its refresh token
    // first, in the background; the dialog only when that fails (an expired
    // token), or the current one while it still holds (renewing ahead).
    if (oidc) {
      const renewed = await import("./oidc").then((o) => o.renew(oidc, area));
      if (renewed && isIdentity(readToken(renewed, Date.now() + EXPIRY_MARGIN_MS))) {
        setToken(renewed);
        return renewed;
      }
      if (isIdentity(readToken(current, Date.now() + EXPIRY_MARGIN_MS))) return current;
    }
    setReauth(true);
    return new Promise<string | null>((resolve) => waiters.current.push(resolve));
  }, []);

  const [authed, setAuthed] = useState(false);
  useEffect(() => {
    if (!signedIn) return;
    setAuthed(false);
    convex.setAuth(fetchToken, (ok) => {
      setAuthed(ok);
      // Refused while a token is held: the gateway does not accept it (a
      // sign-out resolves the client's request with no token instead).
      if (!ok && tokenRef.current) setServerRefused(true);
    });
    return () => convex.clearAuth();
    // Only a new sign-in sets the client's auth again; a token renewed through
    // the dialog reaches it through fetchToken.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [signedIn, convex, fetchToken]);

  const renew = useCallback(
    (next: string) => {
      setToken(next);
      setReauth(false);
      for (const w of waiters.current.splice(0)) w(next);
    },
    [setToken],
  );

  const signOut = useCallback(() => {
    for (const w of waiters.current.splice(0)) w(null);
    setReauth(false);
    setToken(null);
  }, [setToken]);

  const session = useMemo<Session | null>(
    () => (signedIn && token ? { identity: identity as Identity, token, signOut } : null),
    [signedIn, identity, token, signOut],
  );

  if (linkToken !== null) return <Loading fullScreen />;
  if (!session || serverRefused) {
    const problem = linkRefused
      ? t(settings?.oidc ? "signin.linkOff" : "signin.linkOffNoProvider")
      : serverRefused
      ? t("error.refused", { message: "the gateway does not accept this token (signed with another secret?)" })
      : identity && !isIdentity(identity)
        ? identity.kind === "expired"
          ? t("signin.expired", { time: new Date(identity.at).toISOString() })
          : t("signin.bad", { reason: identity.reason })
        : callbackError;
    return <SignInScreen area={area} settings={settings} problem={problem} onToken={setToken} />;
  }
  if (!authed && !reauth) {
    return <Loading fullScreen />;
  }
  return (
    <Ctx.Provider value={session}>
      {children}
      <Modal
        opened={reauth}
        onClose={signOut}
        title={t("signin.title")}
        closeOnClickOutside={false}
        centered
        closeButtonProps={{ "aria-label": t("signout") }}
      >
        <Stack>
          <Alert color="yellow">{t("signin.again")}</Alert>
          <TokenForm settings={settings} area={area} onToken={renew} />
        </Stack>
      </Modal>
    </Ctx.Provider>
  );
}

/** Development tokens sign in (links, the token screen): the gateway takes them and names no provider. */
function devSignIn(settings: Settings | null): boolean {
  return settings?.devSignIn === true && !settings.oidc && !settings.unknown;
}

function SignInScreen(props: { area: string; settings: Settings | null; problem: string | null; onToken(t: string): void }) {
  const { t } = useI18n();
  if (props.settings === null) return <Loading fullScreen />;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" maw={520} w="100%" component="main">
        <Stack>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <Title order={1} size="h2">
              {t("signin.title")}: {t(props.area === "admin" ? "area.admin" : "area.store")}
            </Title>
            <LanguageSwitch />
          </Group>
          {props.problem && (
            <Alert color="red" role="alert">
              {props.problem}
            </Alert>
          )}
          <TokenForm settings={props.settings} area={props.area} onToken={props.onToken} />
        </Stack>
      </Paper>
    </Center>
  );
}

function TokenForm({ settings, area, onToken }: { settings: Settings | null; area: string; onToken(t: string): void }) {
  const { t } = useI18n();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const id = readToken(value);
    if (!isIdentity(id)) {
      setError(id.kind === "expired" ? t("signin.expired", { time: new Date(id.at).toISOString() }) : t("signin.bad", { reason: id.reason }));
      return;
    }
    setError(null);
    onToken(value.trim().replace(/^Bearer\s+/i, ""));
  };
  return (
    <Stack>
      {settings?.oidc && (
        <Button variant="filled" onClick={() => void import("./oidc").then((o) => o.startSignIn(settings.oidc!, area))}>
          {t("signin.oidc", { issuer: new URL(settings.oidc.issuer).host })}
        </Button>
      )}
      {!settings?.oidc && !devSignIn(settings) && (
        <Alert color="yellow" data-testid="signin-unavailable">
          {t(settings?.unknown ? "signin.settingsUnknown" : "signin.noProvider")}
        </Alert>
      )}
      {devSignIn(settings) && <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{t("signin.intro")}</Text>
          <Textarea
            label={t("signin.token")}
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={error}
            autosize
            minRows={3}
            spellCheck={false}
            autoComplete="off"
            data-testid="token-input"
          />
          <Button type="submit">{t("signin.submit")}</Button>
          <Text size="xs" c="dimmed">
            {t("signin.devHint")
              .split("`")
              .map((part, i) => (i % 2 ? <Code key={i}>{part}</Code> : part))}
          </Text>
        </Stack>
      </form>}
    </Stack>
  );
}
