import { Text, type TextProps } from "@mantine/core";
import type { ReactNode } from "react";

// Text a person typed (a name, a comment, a reason, an address, a product or
// store name) is in whatever language they typed it, inside a page of the
// viewer's language. Unisolated, the browser's bidirectional algorithm mixes
// it with what is around it: in Arabic "Noor Hassan · 29/11/2026" shows as
// "2026/11/Noor Hassan · 29", and "Fresh, and on time." as ".Fresh, and on
// time". Isolated, each piece keeps its own direction and its place.
//
// - UserText: inline (a name in a line), a <bdi>: its direction comes from
//   its own first strong letter, and it does not pull its neighbours.
// - UserParagraph: a block (a comment, a reason), a Mantine Text with
//   dir="auto": aligned and ordered by its own language; line breaks kept.
// - A name or figure set into a translated sentence goes through t(), which
//   isolates parameters itself (src/app/i18n.tsx, isolateIn).
// - An IBAN or an id is always left to right: <Text dir="ltr">.

/** An inline piece of user text, isolated (<bdi>). */
export function UserText({ children, testId }: { children: ReactNode; testId?: string }) {
  return <bdi data-testid={testId}>{children}</bdi>;
}

/** A block of user text (a comment, a reason): dir="auto", line breaks kept. */
export function UserParagraph({ children, ...props }: TextProps & { children: ReactNode; "data-testid"?: string }) {
  return (
    <Text dir="auto" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} {...props}>
      {children}
    </Text>
  );
}
