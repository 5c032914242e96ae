import { useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';

/** The app's pages and their paths; the server answers index.html for all of them. */
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of listeners) l();
}

window.addEventListener('popstate', emit);

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  document.body.dataset.appReady = 'false';
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  emit();
}

/** The current path, re-rendering on navigation. */
export function usePath(): string {
  return useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    () => window.location.pathname,
  );
}

/** An <a> that navigates inside the app (a modified click still opens a new tab as usual). */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & Omit<React.AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} {...rest} onClick={onClick}>
      {children}
    </a>
  );
}
