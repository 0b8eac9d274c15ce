import { Card, Group, Stack, Title } from "@mantine/core";
import type { ReactNode } from "react";

// A section of a screen: a card labelled by its title, with the section's
// action (a button that opens a form, say) across from the title.
export function Section({ id, title, action, children }: { id: string; title: string; action?: ReactNode; children?: ReactNode }) {
  const heading = (
    <Title order={3} id={id}>
      {title}
    </Title>
  );
  return (
    <Card withBorder component="section" aria-labelledby={id}>
      <Stack>
        {action ? (
          <Group justify="space-between">
            {heading}
            {action}
          </Group>
        ) : (
          heading
        )}
        {children}
      </Stack>
    </Card>
  );
}
