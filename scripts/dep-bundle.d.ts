// Types of dep-bundle.js, which stays plain JavaScript so that any Node that runs npm can load it.

/** node_modules/.cache/sandboard-deps under root */
export function depBundleDir(root: string): string;

/** node_modules entry file URL -> file URL of its bundled module, or null without a bundle for the installed packages */
export function depBundleMap(root: string): Record<string, string> | null;

/** Builds the bundle unless a fresh one is there: 'fresh', 'built' or 'unavailable: why'; never throws. */
export function ensureDepBundle(root: string): Promise<string>;
