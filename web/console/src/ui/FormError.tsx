import { Alert } from "@mantine/core";
import type { ActionForm } from "../app/action";

// A form's refusal that names none of its fields: above its buttons, with the
// server's code as the title.
export function FormError({ form }: { form: ActionForm<any, unknown> }) {
  return form.formError ? (
    <Alert color="red" role="alert" title={form.formError.code}>
      {form.formError.message}
    </Alert>
  ) : null;
}
