import { Button, Text } from "@mantine/core";
import { useState, type ReactNode } from "react";
import type { ActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import { FormDialog } from "./FormDialog";

// A button that opens a confirmation: the question, the action's fields, and
// Confirm. The server's refusal shows in the dialog (next to its field or
// above the buttons) and the dialog stays open; success closes it.
export function ConfirmAction<R>(props: {
  label: string;
  title: string;
  form: ActionForm<any, R>;
  color?: string;
  children?: ReactNode;
  testId?: string;
}) {
  const { t } = useI18n();
  const [opened, setOpened] = useState(false);
  const { form } = props;
  const close = () => {
    if (form.pending) return;
    setOpened(false);
    form.reset();
  };
  return (
    <>
      <Button size="xs" variant="light" color={props.color} onClick={() => setOpened(true)} data-testid={props.testId}>
        {props.label}
      </Button>
      <FormDialog
        opened={opened}
        onClose={close}
        title={props.label}
        submitLabel={t("confirm")}
        form={form}
        color={props.color}
        onSubmit={async () => {
          const done = await form.submit();
          if (done !== undefined) close();
        }}
      >
        <Text>{props.title}</Text>
        {props.children}
      </FormDialog>
    </>
  );
}
