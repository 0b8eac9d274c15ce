import { Alert, Button, Stack } from "@mantine/core";
import { Component, type ReactNode } from "react";
import { refusalOf } from "../app/action";
import { useI18n } from "../app/i18n";

// A query that fails (useQuery throws its error) shows here, in place of
// its screen (or of its part: fallback, given the error and a retry), with
// the server's words; the rest of the console goes on.
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: unknown; fallback?: (error: unknown, retry: () => void) => ReactNode }, { error: unknown }> {
  state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  componentDidUpdate(prev: { resetKey?: unknown }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  render() {
    if (this.state.error) {
      const retry = () => this.setState({ error: null });
      return this.props.fallback ? this.props.fallback(this.state.error, retry) : <Failure error={this.state.error} retry={retry} />;
    }
    return this.props.children;
  }
}

function Failure({ error, retry }: { error: unknown; retry(): void }) {
  const { t } = useI18n();
  const r = refusalOf(error);
  return (
    <Stack>
      <Alert color="red" role="alert" title={r.code}>
        {t("error.generic", { message: r.message })}
      </Alert>
      <Button variant="light" onClick={retry} w="fit-content">
        ↻
      </Button>
    </Stack>
  );
}
