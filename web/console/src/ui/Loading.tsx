import { Center, Loader, VisuallyHidden } from "@mantine/core";
import { useI18n } from "../app/i18n";

export function Loading({ fullScreen }: { fullScreen?: boolean }) {
  const { t } = useI18n();
  return (
    <Center p="xl" role="status" h={fullScreen ? "100vh" : undefined}>
      <Loader />
      <VisuallyHidden>{t("loading")}</VisuallyHidden>
    </Center>
  );
}
