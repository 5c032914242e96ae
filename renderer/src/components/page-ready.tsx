import { useEffect } from 'react';

/**
 * Marks <body> once a page has rendered: data-page names it and data-app-ready="true" says the app is
 * settled (tests and the desktop shell wait for it).
 */
export function PageReady({ page }: { page: string }) {
  useEffect(() => {
    document.body.dataset.page = page;
    document.body.dataset.appReady = 'true';
  }, [page]);
  return null;
}
