import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from "react";

// A few lines of routing: the path is the screen. The gateway answers every
// path under /admin/ and /store/ with this app, so links and reloads work.

const listeners = new Set<() => void>();

export function navigate(to: string) {
  if (to === window.location.pathname) return;
  window.history.pushState(null, "", to);
  for (const l of listeners) l();
}

export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const update = () => setPath(window.location.pathname);
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

// A component library passes its own onClick (Mantine's NavLink does): it
// runs first, and must not replace this one, or every click loads the page
// again (a screen's state and the live socket lost).
export function Link({ to, onClick: theirs, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    theirs?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} {...rest} onClick={onClick} />;
}
