/** The MQTT page's saved payload snippets, kept by the server (tenant administrator). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { MqttSnippet } from '../../../shared/schemas/mqtt-snippets.ts';
import { useApi } from './api-context.tsx';

const KEY = ['mqtt', 'snippets'] as const;
const PATH = '/api/sandboard/mqtt/snippets';

/**
 * The server's snippets and a save; `fromBrowser` are snippets this browser kept before the server
 * did: they are merged into the server's list once, then `forgetBrowser` is called.
 */
export function useServerSnippets(
  enabled: boolean,
  fromBrowser: () => MqttSnippet[],
  merge: (list: MqttSnippet[], added: MqttSnippet[]) => MqttSnippet[],
  forgetBrowser: () => void,
) {
  const client = useApi();
  const queries = useQueryClient();
  const list = useQuery({
    queryKey: KEY,
    queryFn: () => client.request<MqttSnippet[]>('GET', PATH),
    enabled,
  });
  const save = useMutation({
    mutationFn: (next: MqttSnippet[]) => client.request<MqttSnippet[]>('PUT', PATH, { body: next }),
    onSuccess: (saved) => queries.setQueryData(KEY, saved),
  });
  const moved = useRef(false);
  useEffect(() => {
    if (!enabled || !list.data || moved.current) return;
    moved.current = true;
    const local = fromBrowser();
    if (local.length)
      save.mutate(merge(list.data, local).slice(0, 500), { onSuccess: () => forgetBrowser() });
  }, [enabled, list.data, fromBrowser, merge, forgetBrowser, save]);
  return { list, save };
}
