import { Title } from "@mantine/core";
import { useEffect } from "react";
import { isolate } from "../app/i18n";
import { UserText } from "./UserText";

/**
 * A screen's heading "{screen}: {name}" (a store's name), the name isolated
 * (UserText), and the same as the document's title, the name between the
 * Unicode isolates (a title holds no markup): an Arabic store name in an
 * English title, or a Latin one in Arabic, keeps its place and its own
 * direction.
 */
export function ScreenTitle({ screen, name }: { screen: string; name: string }) {
  const title = `${screen}: ${isolate(name)}`;
  useEffect(() => {
    const before = document.title;
    document.title = title;
    return () => {
      document.title = before;
    };
  }, [title]);
  return (
    <Title order={2} data-testid="screen-title">
      {screen}: <UserText>{name}</UserText>
    </Title>
  );
}
