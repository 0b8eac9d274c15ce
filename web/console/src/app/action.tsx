import { useMutation } from "convex/react";
import type { FunctionArgs, FunctionReference, FunctionReturnType } from "convex/server";
import { ConvexError } from "convex/values";
import { useCallback, useRef, useState } from "react";

// Forms and actions. A submission runs its mutation once: the button is
// disabled while it runs, and nothing here sends it again. A mutation goes
// over Convex's sync socket, which the gateway runs with the Idempotency-Key
// convex-sync:<session>:<request>; the client resends an unanswered mutation
// after a reconnect with the same request id, so that resend replays the kept
// outcome instead of running twice. A failed mutation leaves the screen as it
// was and says why: next to its field when the server names one
// (details.field), above the form otherwise.

/** What the server said when it refused a call. */
export interface Refusal {
  code: string;
  message: string;
  field?: string;
  reason?: string;
  details: Record<string, unknown>;
}

/** The refusal in a thrown error (ConvexError carries the contract's errorData). */
export function refusalOf(e: unknown): Refusal {
  if (e instanceof ConvexError && e.data && typeof e.data === "object") {
    const data = e.data as Record<string, unknown>;
    return {
      code: typeof data.code === "string" ? data.code : "UNKNOWN",
      message: serverMessage(e.message),
      field: typeof data.field === "string" ? data.field : undefined,
      reason: typeof data.reason === "string" ? data.reason : undefined,
      details: data,
    };
  }
  const message = e instanceof Error ? serverMessage(e.message) : String(e);
  return { code: "UNKNOWN", message, details: {} };
}

// convex-js words an error "[CONVEX M(path)] <message>\n  Called by client".
function serverMessage(m: string): string {
  return m.replace(/^\[CONVEX [^\]]*\]\s*/, "").replace(/\s*Called by client\s*$/, "").trim();
}

type Values = Record<string, string | boolean>;
type Validators<V extends Values> = Partial<{ [K in keyof V]: (value: V[K], all: V) => string | null }>;

export interface ActionForm<V extends Values, R> {
  values: V;
  set<K extends keyof V>(key: K, value: V[K]): void;
  /** Props for a Mantine input bound to a field: value, onChange, error. */
  input<K extends keyof V>(key: K): { value: string; onChange(e: { currentTarget: { value: string } }): void; error: string | null; name: string };
  checkbox<K extends keyof V>(key: K): { checked: boolean; onChange(e: { currentTarget: { checked: boolean } }): void; name: string };
  fieldError(key: keyof V): string | null;
  /** A refusal that names no field of the form. */
  formError: Refusal | null;
  pending: boolean;
  submit(e?: { preventDefault(): void }): Promise<R | undefined>;
  reset(): void;
}

export interface ActionFormOptions<V extends Values, M extends FunctionReference<"mutation">> {
  initial: V;
  mutation: M;
  args(values: V): FunctionArgs<M>;
  validate?: Validators<V>;
  /** The server's field paths (details.field) that belong to a form field, e.g. "bankDetails.IBAN": "IBAN". */
  fields?: Record<string, keyof V>;
  /** A refusal's text for the user (by reason, say); the server's message otherwise. */
  describe?(r: Refusal): string | null;
  onDone?(result: FunctionReturnType<M>, values: V): void;
}

export function useActionForm<V extends Values, M extends FunctionReference<"mutation">>(
  o: ActionFormOptions<V, M>,
): ActionForm<V, FunctionReturnType<M>> {
  const run = useMutation(o.mutation);
  const [values, setValues] = useState<V>(o.initial);
  const [errors, setErrors] = useState<Partial<Record<keyof V, string>>>({});
  const [formError, setFormError] = useState<Refusal | null>(null);
  const [pending, setPending] = useState(false);
  const inFlight = useRef(false);
  const opts = useRef(o);
  opts.current = o;

  const set = useCallback(<K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => (e[key] ? { ...e, [key]: undefined } : e));
  }, []);

  const submit = useCallback(
    async (e?: { preventDefault(): void }) => {
      e?.preventDefault();
      if (inFlight.current) return undefined; // one run per submission
      const { validate, args, fields, describe, onDone } = opts.current;
      const found: Partial<Record<keyof V, string>> = {};
      for (const key of Object.keys(validate ?? {}) as (keyof V)[]) {
        const msg = validate?.[key]?.(values[key], values);
        if (msg) found[key] = msg;
      }
      setErrors(found);
      setFormError(null);
      if (Object.keys(found).length > 0) return undefined;
      inFlight.current = true;
      setPending(true);
      try {
        const result = await run(args(values));
        onDone?.(result, values);
        return result;
      } catch (err) {
        const r = refusalOf(err);
        const text = describe?.(r) ?? r.message;
        const key = r.field !== undefined ? (fields?.[r.field] ?? (r.field in values ? (r.field as keyof V) : undefined)) : undefined;
        if (key !== undefined) setErrors({ [key]: text } as Partial<Record<keyof V, string>>);
        else setFormError({ ...r, message: text });
        return undefined;
      } finally {
        inFlight.current = false;
        setPending(false);
      }
    },
    [run, values],
  );

  return {
    values,
    set,
    input: (key) => ({
      name: String(key),
      value: String(values[key] ?? ""),
      onChange: (e) => set(key, e.currentTarget.value as V[typeof key]),
      error: errors[key] ?? null,
    }),
    checkbox: (key) => ({
      name: String(key),
      checked: Boolean(values[key]),
      onChange: (e) => set(key, e.currentTarget.checked as V[typeof key]),
    }),
    fieldError: (key) => errors[key] ?? null,
    formError,
    pending,
    submit,
    reset: () => {
      setValues(opts.current.initial);
      setErrors({});
      setFormError(null);
    },
  };
}
