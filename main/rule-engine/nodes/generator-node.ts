import { randomUUID } from 'node:crypto';
import { NODE_TYPES, type MsgType } from '../../../shared/rule-engine.ts';
import { GENERATOR_ORIGINATOR_TYPES } from '../../../shared/rule-node-schemas.ts';
import type { Originator, TbMsg } from '../../platform/tb-msg.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';
import { checkScriptConfig, RuleScript, scriptOwner } from '../script/rule-script.ts';

const DEFAULT_SCRIPT =
  'var msg = { temp: 42, humidity: 77 };\nvar metadata = { data: 40 };\nvar msgType = "POST_TELEMETRY_REQUEST";\n\n' +
  'return { msg: msg, metadata: metadata, msgType: msgType };';
const ARG_NAMES = ['prevMsg', 'prevMetadata', 'prevMsgType'];
const isInt = (v: unknown, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min;

/**
 * TbMsgGeneratorNode: every periodInSeconds the script makes a message from the previous one (prevMsg,
 * prevMetadata, prevMsgType) and sends it to Success, msgCount times (0: without end). It has no input.
 */
export const generatorNode: NodeDefinition = {
  type: NODE_TYPES.msgGenerator,
  label: 'Generator',
  componentType: 'ACTION',
  description: 'Periodically generates messages',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    msgCount: 0,
    periodInSeconds: 1,
    originatorType: 'RULE_NODE',
    scriptLang: 'TBEL',
    jsScript: DEFAULT_SCRIPT,
    tbelScript: DEFAULT_SCRIPT,
  },
  validate: (c) => {
    if (c.msgCount !== undefined && !isInt(c.msgCount, 0)) return "'msgCount' must be an integer >= 0";
    if (!isInt(c.periodInSeconds, 1)) return "'periodInSeconds' must be an integer >= 1";
    const type = c.originatorType ?? 'RULE_NODE';
    if (typeof type !== 'string' || !GENERATOR_ORIGINATOR_TYPES.includes(type))
      return `'originatorType' must be one of ${GENERATOR_ORIGINATOR_TYPES.join(', ')}`;
    if (
      type !== 'RULE_NODE' &&
      type !== 'TENANT' &&
      (typeof c.originatorId !== 'string' || !c.originatorId.trim())
    )
      return "'originatorId' is required: Originator entity must be selected.";
    return checkScriptConfig(c, ARG_NAMES);
  },
  create: (config, env, node) => {
    const script = RuleScript.fromConfig(config, { argNames: ARG_NAMES, owner: scriptOwner(env, node) });
    const msgCount = isInt(config.msgCount, 0) ? (config.msgCount as number) : 0;
    const delayMs = (isInt(config.periodInSeconds, 1) ? (config.periodInSeconds as number) : 1) * 1000;
    const selfId = randomUUID();
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    return {
      process: () => [],
      problem: () => script.problem(),
      start(emit) {
        const type = (config.originatorType as string | undefined) ?? 'RULE_NODE';
        const originator: Originator =
          type === 'RULE_NODE'
            ? { entityType: 'RULE_NODE', id: selfId }
            : type === 'TENANT'
              ? { entityType: 'TENANT', id: env.services.ctx.tenantId }
              : { entityType: type, id: config.originatorId as string };
        let prev: TbMsg = {
          id: randomUUID(),
          ts: Date.now(),
          type: '' as MsgType,
          originator,
          data: {},
          metadata: {},
        };
        let sent = 0;
        let next = Date.now();
        const schedule = () => {
          next += delayMs;
          timer = setTimeout(() => void tick(), Math.max(0, next - Date.now()));
          timer.unref();
        };
        const tick = async () => {
          if (stopped) return;
          const tickMsg: TbMsg = { ...prev, id: randomUUID(), ts: Date.now() };
          let out;
          try {
            const m = await script.generate(prev);
            prev = { ...m, id: randomUUID(), ts: Date.now(), originator };
            out = [{ relation: 'Success', msg: prev }];
          } catch (err) {
            out = failure(tickMsg, err);
          }
          if (stopped) return;
          emit(out);
          sent++;
          if (msgCount === 0 || sent < msgCount) schedule();
        };
        schedule();
      },
      destroy() {
        stopped = true;
        if (timer) clearTimeout(timer);
        script.destroy();
      },
    };
  },
};
