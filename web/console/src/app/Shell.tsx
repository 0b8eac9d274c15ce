import { AppShell, Burger, Button, Drawer, Group, NavLink, Popover, Stack, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { lazy, Suspense, useEffect, useMemo, type MouseEvent, type ReactNode } from "react";
import { ErrorBoundary } from "../ui/ErrorBoundary";
import { Loading } from "../ui/Loading";
import { screens, type AreaName, type Screen } from "./areas";
import { useI18n } from "./i18n";
import { LanguageSwitch } from "./LanguageSwitch";
import { Link, navigate, usePath } from "./router";
import { useSession } from "./session";

// The frame of every screen (ADR 0158). From the sm breakpoint (48em) up:
// the navigation beside the content, and in the header who is signed in,
// headerExtra (the store picker), the language and Sign out. Below it (a
// phone): the header holds a burger, the area's title (cut with an ellipsis)
// and an Account menu with the rest, so Sign out is always one tap away; the
// navigation opens in a drawer, which closes on Escape, on its close button
// and when a screen is chosen. The first thing a keyboard reaches is a skip
// link to the content (<main id="main">).
// screenKey: a screen is made anew when it changes (the store chosen in the
// store area), so nothing of one store's screen (its pager's cursors, its
// filters) is carried to another's.
export function Shell({ area, headerExtra, screenKey }: { area: AreaName; headerExtra?: (inMenu: boolean) => ReactNode; screenKey?: string }) {
  const { t, dir } = useI18n();
  const session = useSession();
  const path = usePath();
  const [opened, drawer] = useDisclosure();
  const list = screens[area];
  const current = list.find((s) => path === `/${area}/${s.path}` || path.startsWith(`/${area}/${s.path}/`)) ?? null;
  const lazies = useMemo(() => new Map(list.map((s) => [s.path, lazy(s.load)])), [list]);
  // A screen chosen (the current one too) or any other way of moving closes the drawer.
  const close = drawer.close;
  useEffect(() => close(), [path, close]);
  if (!current) {
    // /admin/ and unknown paths: the area's first screen.
    queueMicrotask(() => navigate(`/${area}/${list[0].path}`));
  }
  const Screen = current ? lazies.get(current.path)! : null;
  const title = t(area === "admin" ? "area.admin" : "area.store");
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: true } }} padding="md">
      <a className="mk-skip" href="#main" onClick={skipToMain} data-testid="skip-link">
        {t("shell.skip")}
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="xs">
          <Group wrap="nowrap" gap="xs" className="mk-title">
            <Burger
              opened={opened}
              onClick={drawer.toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={t(opened ? "shell.menuClose" : "shell.menu")}
              aria-expanded={opened}
              aria-controls="mk-drawer"
              data-testid="nav-burger"
            />
            <Title order={1} size="h4" style={{ minWidth: 0, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" }}>
              {title}
            </Title>
          </Group>
          <Group wrap="nowrap" gap="xs" visibleFrom="sm">
            {headerExtra?.(false)}
            <Text size="sm" data-testid="signed-in-as" title={session.identity.sub}>
              {t("signedInAs", { sub: session.identity.name ?? session.identity.sub })}
            </Text>
            <LanguageSwitch />
            <Button variant="default" size="compact-sm" onClick={session.signOut}>
              {t("signout")}
            </Button>
          </Group>
          <Account headerExtra={headerExtra} />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t("nav.label")} visibleFrom="sm">
        <NavList area={area} list={list} current={current} />
      </AppShell.Navbar>
      <Drawer
        opened={opened}
        onClose={drawer.close}
        id="mk-drawer"
        position={dir === "rtl" ? "right" : "left"}
        size="min(320px, 85vw)"
        title={title}
        hiddenFrom="sm"
        closeButtonProps={{ "aria-label": t("shell.menuClose") }}
        data-testid="nav-drawer"
      >
        <nav aria-label={t("nav.label")}>
          <NavList area={area} list={list} current={current} onChoose={close} />
        </nav>
      </Drawer>
      <AppShell.Main id="main" tabIndex={-1}>
        {Screen && (
          <ErrorBoundary resetKey={path}>
            <Suspense fallback={<Loading />}>
              <Screen key={screenKey} />
            </Suspense>
          </ErrorBoundary>
        )}
      </AppShell.Main>
    </AppShell>
  );
}

function skipToMain(e: MouseEvent) {
  e.preventDefault();
  document.getElementById("main")?.focus();
}

function NavList({ area, list, current, onChoose }: { area: AreaName; list: Screen[]; current: Screen | null; onChoose?: () => void }) {
  const { t } = useI18n();
  return (
    <>
      {list.map((s) => (
        <NavLink
          key={s.path}
          component={Link}
          to={`/${area}/${s.path}`}
          label={t(s.label)}
          rightSection={s.badge && <s.badge />}
          active={current?.path === s.path}
          aria-current={current?.path === s.path ? "page" : undefined}
          onClick={onChoose}
        />
      ))}
    </>
  );
}

/** Below sm: who is signed in, the store picker, the language and Sign out, behind one button. */
function Account({ headerExtra }: { headerExtra?: (inMenu: boolean) => ReactNode }) {
  const { t } = useI18n();
  const session = useSession();
  const [opened, menu] = useDisclosure();
  return (
    <Popover opened={opened} onChange={menu.set} position="bottom-end" width={280} trapFocus returnFocus closeOnEscape shadow="md" withinPortal>
      <Popover.Target>
        <Button variant="default" size="compact-sm" hiddenFrom="sm" onClick={menu.toggle} aria-expanded={opened} aria-haspopup="dialog" data-testid="account-menu" style={{ flexShrink: 0 }}>
          {t("shell.account")}
        </Button>
      </Popover.Target>
      <Popover.Dropdown role="dialog" aria-label={t("shell.account")} data-testid="account-panel">
        <Stack gap="sm">
          <div>
            <Text size="xs" c="dimmed">
              {t("shell.signedInAs")}
            </Text>
            <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }} dir="auto" title={session.identity.sub}>
              {session.identity.name ?? session.identity.sub}
            </Text>
          </div>
          {headerExtra?.(true)}
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm">{t("shell.language")}</Text>
            <LanguageSwitch />
          </Group>
          <Button variant="default" onClick={session.signOut} data-testid="account-signout">
            {t("signout")}
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
