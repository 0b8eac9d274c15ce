// Light or dark, as the system says (ADR 0158): Mantine's "auto" scheme,
// whose choice it keeps in localStorage ("mantine-color-scheme-value"); the
// attribute it reads is set here before the first render, from the same
// sources, so the page is never drawn in the other scheme first.
const KEY = "mantine-color-scheme-value";

export function applyColorScheme() {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    // storage may be unavailable: the system decides
  }
  const dark = saved === "dark" || ((saved === null || saved === "auto") && window.matchMedia?.("(prefers-color-scheme: dark)").matches);
  document.documentElement.setAttribute("data-mantine-color-scheme", dark ? "dark" : "light");
}
