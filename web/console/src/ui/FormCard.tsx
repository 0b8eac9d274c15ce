import { Alert, Button, Card, Group, Stack, Title } from "@mantine/core";
import { useState, type FormEvent, type ReactNode } from "react";
import type { ActionForm } from "../app/action";
import { FormError } from "./FormError";

// A form that is a section of its own: its title, its fields, the refusal
// that names no field, a note once it went through, and the submit button.
export function FormCard(props: {
  /** The title's id, which labels the section. */
  id: string;
  title: string;
  form: ActionForm<any, unknown>;
  onSubmit(e: FormEvent<HTMLFormElement>): void;
  /** Shown (as a status) once the form went through. */
  done?: string | null;
  submitLabel: string;
  submitTestId?: string;
  formTestId?: string;
  children?: ReactNode;
}) {
  const { form } = props;
  return (
    <Card withBorder component="section" aria-labelledby={props.id}>
      <form noValidate data-testid={props.formTestId} onSubmit={props.onSubmit}>
        <Stack>
          <Title order={3} id={props.id}>
            {props.title}
          </Title>
          {props.children}
          <FormError form={form} />
          {props.done && (
            <Alert color="green" role="status">
              {props.done}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={form.pending} data-testid={props.submitTestId}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

// A FormCard's submission that empties the form once it went through and
// says so (done) until the next submission.
export function useSubmitAndEmpty(form: ActionForm<any, unknown>) {
  const [done, setDone] = useState(false);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    setDone(false);
    void form.submit(e).then((r) => {
      if (r === undefined) return;
      form.reset();
      setDone(true);
    });
  };
  return { done, onSubmit };
}
