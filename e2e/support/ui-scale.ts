import type { Page } from '@playwright/test';

/** Opens the app at a UI scale (as a user who chose it on this machine before: kept in localStorage). */
export async function useUiScale(page: Page, scale: 1 | 1.25 | 1.5): Promise<void> {
  await page.addInitScript((s) => localStorage.setItem('sandboard.ui-scale', String(s)), scale);
}
