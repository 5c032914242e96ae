import type { TargetRest } from './target-rest.ts';

/** Whether the target is a Sandboard (it answers GET /api/sandboard/info). */
export async function isSandboard(rest: TargetRest): Promise<boolean> {
  const res = await rest.request('GET', '/api/sandboard/info').catch(() => ({ status: 0 }));
  return res.status === 200;
}

/**
 * The events queued for an edge since `since` (epoch ms), counted in all and by entity type and action
 * ({"DEVICE": 2, "TIMESERIES_UPDATED": 2}); undefined when there is no edge of that name.
 */
export function edgeEventsReader(
  rest: TargetRest,
  since: () => number,
): (edge: string) => Promise<{ count: number; types: Record<string, number> } | undefined> {
  const ids = new Map<string, string>();
  return async (edge) => {
    let id = ids.get(edge);
    if (!id) {
      const page = await rest.json<{ data: { id: { id: string }; name: string }[] }>(
        'GET',
        `/api/tenant/edges?pageSize=100&page=0&textSearch=${encodeURIComponent(edge)}`,
      );
      id = page.data.find((e) => e.name === edge)?.id.id;
      if (!id) return undefined;
      ids.set(edge, id);
    }
    const events = await rest.json<{ data: { type: string; action: string }[] }>(
      'GET',
      `/api/edge/${id}/events?pageSize=10000&page=0&startTime=${since()}`,
    );
    const types: Record<string, number> = {};
    for (const e of events.data) for (const k of [e.type, e.action]) types[k] = (types[k] ?? 0) + 1;
    return { count: events.data.length, types };
  };
}
