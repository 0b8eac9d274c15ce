import {
  Button,
  Center,
  DirectionProvider,
  MantineProvider,
  Paper,
  Stack,
  Text,
  Title,
  createTheme,
  type CSSVariablesResolver,
  type MantineColorsTuple,
  useDirection,
} from "@mantine/core";
import { ConvexProvider, ConvexReactClient } from "convex/react";
import { useEffect, useState, type ReactNode } from "react";
import { StoreProvider, StorePicker, useStore } from "../store/StoreContext";
import { areaOf, type AreaName } from "./areas";
import { I18nProvider, useI18n } from "./i18n";
import { LanguageSwitch } from "./LanguageSwitch";
import { SearchBox } from "../admin/SearchBox";
import { Shell } from "./Shell";
import { SessionGate, useSession } from "./session";

// Convex's React client against the gateway that served the page: queries
// are live over its sync socket (GET /api/<version>/sync).
const convex = new ConvexReactClient(window.location.origin, {
  skipConvexDeploymentUrlCheck: true,
  unsavedChangesWarning: false,
});

// Mantine's palettes with darker ninth shades where its defaults fall short
// of WCAG AA contrast (4.5:1) for text on their light fills, and filled
// controls in the ninth shade (white text on it passes too): axe-core checks
// every screen in the browser tests.
const teal: MantineColorsTuple = ["#e6fcf5", "#c3fae8", "#96f2d7", "#63e6be", "#38d9a9", "#20c997", "#12b886", "#0ca678", "#099268", "#06604a"];
const green: MantineColorsTuple = ["#ebfbee", "#d3f9d8", "#b2f2bb", "#8ce99a", "#69db7c", "#51cf66", "#40c057", "#37b24d", "#2f9e44", "#1e6b30"];
const orange: MantineColorsTuple = ["#fff4e6", "#ffe8cc", "#ffd8a8", "#ffc078", "#ffa94d", "#ff922b", "#fd7e14", "#f76707", "#e8590c", "#a33a0b"];

const theme = createTheme({
  // A dialog's header is not the page's banner (axe: one banner landmark):
  // Mantine draws it as <header> inside a role="dialog" section.
  components: {
    ModalHeader: { defaultProps: { component: "div" } },
    DrawerHeader: { defaultProps: { component: "div" } },
  },
  primaryColor: "teal",
  primaryShade: 9,
  colors: { teal, green, orange },
  fontFamily: "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans Arabic', 'DejaVu Sans', Tahoma, sans-serif",
});

// Dimmed text (descriptions, hints) dark enough to read,
const cssVariables: CSSVariablesResolver = () => ({
  variables: {},
  // and field errors (red.6 on white is 3.6:1; this is 6.5:1).
  light: { "--mantine-color-dimmed": "#5c636a", "--mantine-color-error": "#c01c1c" },
  // The same on the dark body (#242424): 8:1 and 6.9:1.
  dark: { "--mantine-color-dimmed": "#b3b8bd", "--mantine-color-error": "#ff8787" },
});

export function App() {
  return (
    <I18nProvider>
      <Themed>
        <Area />
      </Themed>
    </I18nProvider>
  );
}

// Mantine's direction follows the chosen language (dir="rtl" in Arabic, set
// on <html> by the I18nProvider); switching keeps every screen mounted, so a
// form being filled keeps its values.
function Themed({ children }: { children: ReactNode }) {
  const { dir } = useI18n();
  return (
    <DirectionProvider initialDirection={dir} detectDirection={false}>
      <FollowDirection dir={dir} />
      <MantineProvider theme={theme} cssVariablesResolver={cssVariables} defaultColorScheme="auto">
        {children}
      </MantineProvider>
    </DirectionProvider>
  );
}

function FollowDirection({ dir }: { dir: "ltr" | "rtl" }) {
  const { setDirection } = useDirection();
  useEffect(() => setDirection(dir), [dir, setDirection]);
  return null;
}

function Area() {
  const [area] = useState<AreaName | null>(() => areaOf(window.location.pathname));
  if (!area) return <NotFound />;
  return (
    <ConvexProvider client={convex}>
      <SessionGate area={area} convex={convex}>
        {area === "admin" ? <AdminArea /> : <StoreArea />}
      </SessionGate>
    </ConvexProvider>
  );
}

function AdminArea() {
  const { identity } = useSession();
  const { t } = useI18n();
  if (!identity.roles.includes("admin")) return <Denied message={t("denied.admin", { sub: identity.sub })} />;
  return <Shell area="admin" headerExtra={(inMenu) => (inMenu ? null : <SearchBox />)} />;
}

function StoreArea() {
  const { identity } = useSession();
  const { t } = useI18n();
  return (
    <StoreProvider denied={<Denied message={t("denied.noStore", { sub: identity.sub })} />}>
      <StoreShell />
    </StoreProvider>
  );
}

/** The store area's frame; its screen is made anew for each store chosen. */
function StoreShell() {
  const { store } = useStore();
  return <Shell area="store" headerExtra={(inMenu) => <StorePicker inPopover={inMenu} />} screenKey={store._id} />;
}

/** A screen a role may not use says so, and offers to sign out. */
export function Denied({ message }: { message: string }) {
  const { t } = useI18n();
  const { signOut } = useSession();
  useEffect(() => {
    document.title = t("denied.title");
  }, [t]);
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" maw={560} component="main">
        <Stack>
          <Title order={1} size="h2">
            {t("denied.title")}
          </Title>
          <Text data-testid="denied">{message}</Text>
          <Stack gap="xs" align="flex-start">
            <LanguageSwitch />
            <Button variant="default" onClick={signOut}>
              {t("signout")}
            </Button>
          </Stack>
        </Stack>
      </Paper>
    </Center>
  );
}

function NotFound() {
  return (
    <Center mih="100vh" component="main">
      <Text>
        <a href="/admin/">/admin/</a> · <a href="/store/">/store/</a>
      </Text>
    </Center>
  );
}
