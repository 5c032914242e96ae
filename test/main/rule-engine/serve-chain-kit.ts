/** Rule chain helpers for tests against a `sandboard serve` child (generator nodes, their debug events). */
import { serveRest, type ServeProcess } from '../../helpers/serve-process.ts';
import { failuresRecorded, fileNode, type FileNode } from './chain-kit.ts';

export const GENERATOR = 'org.thingsboard.rule.engine.debug.TbMsgGeneratorNode';

/** A generator node running `jsScript` every second, its failures recorded as debug events. */
export function generatorNode(name: string, jsScript: string): FileNode {
  return failuresRecorded(
    fileNode(GENERATOR, name, {
      msgCount: 0,
      periodInSeconds: 1,
      originatorType: 'RULE_NODE',
      scriptLang: 'JS',
      jsScript,
      tbelScript: 'return {};',
    }),
  );
}

/** The errors of a node's Failure debug events, newest first. */
export async function serveNodeFailures(
  serve: ServeProcess,
  token: string,
  nodeId: string,
): Promise<string[]> {
  const page = await serveRest<{ data: { body: { relationType?: string; error?: string } }[] }>(
    serve,
    `/api/events/RULE_NODE/${nodeId}/DEBUG_RULE_NODE?pageSize=20&page=0`,
    { token },
  );
  return page.data.filter((e) => e.body.relationType === 'Failure').map((e) => e.body.error ?? '');
}
