import { Button, Group, Modal, Stack } from "@mantine/core";
import type { ReactNode } from "react";
import type { ActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import { FormError } from "./FormError";

// A dialog holding a form: its fields (or a question), the refusal of the
// form's action when there is one, Cancel and the submit button. The caller
// says what submitting does and when the dialog closes; while the form's
// action runs, both buttons wait.
export function FormDialog(props: {
  opened: boolean;
  onClose(): void;
  title: string;
  submitLabel: string;
  onSubmit(): unknown;
  /** The form whose refusal and pending state the dialog shows. */
  form?: ActionForm<any, unknown>;
  color?: string;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const { form } = props;
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered closeButtonProps={{ "aria-label": t("close") }}>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void props.onSubmit();
        }}
      >
        <Stack>
          {props.children}
          {form && <FormError form={form} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose} disabled={form?.pending}>
              {t("cancel")}
            </Button>
            <Button type="submit" color={props.color} loading={form?.pending}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
