import { AppShell, Burger, Button, Group, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { lazy, Suspense, useMemo, type ReactNode } from "react";
import { ErrorBoundary } from "../ui/ErrorBoundary";
import { Loading } from "../ui/Loading";
import { screens, type AreaName } from "./areas";
import { useI18n } from "./i18n";
import { LanguageSwitch } from "./LanguageSwitch";
import { Link, navigate, usePath } from "./router";
import { useSession } from "./session";

export function Shell({ area, headerExtra }: { area: AreaName; headerExtra?: ReactNode }) {
  const { t } = useI18n();
  const session = useSession();
  const path = usePath();
  const [opened, { toggle }] = useDisclosure();
  const list = screens[area];
  const current = list.find((s) => path === `/${area}/${s.path}` || path.startsWith(`/${area}/${s.path}/`)) ?? null;
  const lazies = useMemo(() => new Map(list.map((s) => [s.path, lazy(s.load)])), [list]);
  if (!current) {
    // /admin/ and unknown paths: the area's first screen.
    queueMicrotask(() => navigate(`/${area}/${list[0].path}`));
  }
  const Screen = current ? lazies.get(current.path)! : null;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t("nav.label")} />
            <Title order={1} size="h4">
              {t(area === "admin" ? "area.admin" : "area.store")}
            </Title>
          </Group>
          <Group wrap="nowrap" gap="xs">
            {headerExtra}
            <Text size="sm" visibleFrom="sm" data-testid="signed-in-as" title={session.identity.sub}>
              {t("signedInAs", { sub: session.identity.name ?? session.identity.sub })}
            </Text>
            <LanguageSwitch />
            <Button variant="default" size="compact-sm" onClick={session.signOut}>
              {t("signout")}
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t("nav.label")}>
        {list.map((s) => (
          <NavLink
            key={s.path}
            component={Link}
            to={`/${area}/${s.path}`}
            label={t(s.label)}
            rightSection={s.badge && <s.badge />}
            active={current?.path === s.path}
            aria-current={current?.path === s.path ? "page" : undefined}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        {Screen && (
          <ErrorBoundary resetKey={path}>
            <Suspense fallback={<Loading />}>
              <Screen />
            </Suspense>
          </ErrorBoundary>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
