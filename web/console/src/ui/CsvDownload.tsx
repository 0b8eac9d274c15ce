import { Alert, Button, Stack } from "@mantine/core";
import { useState } from "react";
import { refusalOf } from "../app/action";
import { useI18n } from "../app/i18n";
import { useSession } from "../app/session";

// A CSV export's download: the export routes take the session's bearer
// token in the Authorization header (a plain link could not send it), so
// the file is fetched, then saved through an object URL. A refusal (the
// period, too many rows) is said beside the button.
export function CsvLink({ path, filename, disabled }: { path: string; filename: string; disabled?: boolean }) {
  const { t } = useI18n();
  const { token } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setPending(true);
    setError(null);
    try {
      const r = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
      if (!r.ok) {
        let message = `${r.status} ${r.statusText}`;
        try {
          const body = await r.json();
          message = body?.error?.message ?? body?.message ?? message;
        } catch {
          // not JSON: the status says it
        }
        throw new Error(message);
      }
      const url = URL.createObjectURL(await r.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = filename;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(t("csv.failed", { message: refusalOf(e).message }));
    } finally {
      setPending(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Button variant="light" onClick={() => void download()} loading={pending} disabled={disabled} data-testid={`csv-${filename}`}>
        {t("csv.download")}
      </Button>
      {error && (
        <Alert color="red" role="alert" p="xs">
          {error}
        </Alert>
      )}
    </Stack>
  );
}
