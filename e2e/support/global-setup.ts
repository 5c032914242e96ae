// Before any e2e test: stop at once, with one message, when there is no browser to drive.
import { findBrowser } from './find-browser.ts';

export default function globalSetup(): void {
  const browser = findBrowser();
  if (!browser.path) {
    process.stderr.write(`\n${browser.detail}\n\n`);
    throw new Error(browser.detail);
  }
}
