/** The shipped sandboxes of the "Start here" page: the catalogue and loading one. */
import type {
  LoadShippedSandboxResult,
  ShippedSandboxInfo,
  ShippedSandboxList,
} from '../../../shared/schemas/shipped-sandbox.ts';
import type { ApiClient } from './client.ts';

export type { LoadShippedSandboxResult, ShippedSandboxInfo, ShippedSandboxList };

export function shippedSandboxes(client: ApiClient): Promise<ShippedSandboxList> {
  return client.request('GET', '/api/sandboard/sandboxes/shipped');
}

/** Loads a shipped sandbox (idempotent); answers once it is loaded and its simulation runs. */
export function loadShippedSandbox(client: ApiClient, id: string): Promise<LoadShippedSandboxResult> {
  return client.request('POST', `/api/sandboard/sandboxes/shipped/${encodeURIComponent(id)}/load`);
}
