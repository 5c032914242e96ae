import { join } from 'node:path';
import type { PlatformConfig } from '../config.ts';
import { EdgeQueue } from '../edge/edge-queue.ts';
import type { Services } from '../platform/services.ts';
import { CalculatedFieldEngine } from '../rule-engine/calculated-fields/cf-engine.ts';
import { checkCalculatedFieldConfig } from '../rule-engine/calculated-fields/cf-checks.ts';
import { subscribeEntityMessages } from '../rule-engine/entity-messages.ts';
import { createNodeRegistry } from '../rule-engine/node-registry.ts';
import { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import { UserCodeGuard } from '../rule-engine/user-code-guard.ts';
import type { Lifecycle } from './lifecycle.ts';
import { isVerbose } from './logging.ts';

export interface Rules {
  ruleChains: RuleChainService;
  engine: RuleEngine;
  edgeQueue: EdgeQueue;
  calculatedFields: CalculatedFieldEngine;
}

/**
 * The edge queue, the rule chains (ThingsBoard's default chains on first start) and the engine running them.
 * No user code runs yet: nodes that run on their own start with engine.startNodes() once the transports
 * answer, and a node that was running its script when the process died last time is suspended.
 */
export async function setupRuleEngine(
  services: Services,
  config: PlatformConfig,
  life: Lifecycle,
): Promise<Rules> {
  const { ctx } = services;
  const edgeQueue = new EdgeQueue(ctx, {
    ackTimeoutMs: config.edgeAckTimeoutMs,
    deliveredRetentionMs: config.edgeDeliveredRetentionMs,
  });
  life.onStop(() => edgeQueue.stop());
  const ruleChains = new RuleChainService(ctx, createNodeRegistry());
  await ruleChains.seedDefaults();
  const verbose = isVerbose(config);
  const userCode = new UserCodeGuard(join(config.dataDir, 'rule-nodes-running.json'), (line) =>
    process.stderr.write(`${line}\n`),
  );
  const engine = ruleChains.start(
    {
      services,
      edgeQueue,
      log: (line) => {
        if (verbose) process.stderr.write(`${line}\n`);
      },
      userCode,
    },
    { holdStart: true },
  );
  life.onStop(() => ruleChains.stop());
  // Users' alarm and relation changes reach the rule engine as messages (push to edge among others).
  life.onStop(
    subscribeEntityMessages(
      ctx.events,
      (id) => services.users.findRow(id),
      (msg) => engine.submit(msg),
    ),
  );
  // Calculated fields: computed on their arguments' changes, results enter the rule engine as telemetry.
  services.calculatedFields.setConfigChecker(checkCalculatedFieldConfig);
  services.calculatedFields.limits.maxCalculatedFieldsPerEntity = config.calculatedFieldsPerEntity;
  const calculatedFields = new CalculatedFieldEngine(services, (msg) => engine.submit(msg));
  calculatedFields.start();
  life.onStop(() => calculatedFields.stop());
  return { ruleChains, engine, edgeQueue, calculatedFields };
}
