import { NODE_TYPES, type MsgType } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { ALARM_SEVERITIES, type AlarmInfo, type AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import type { AlarmChange, AlarmPropagation } from '../../platform/alarms.ts';
import { newMsg, type Originator, type TbMsg } from '../../platform/tb-msg.ts';
import { configurationProblem } from '../config-schema.ts';
import { metadataTs, processPattern } from '../msg-patterns.ts';
import { failure, success, type NodeContext, type NodeDefinition, type NodeOutput } from '../rule-node.ts';
import { checkScriptConfig, RuleScript, scriptOwner, type ScriptFields } from '../script/rule-script.ts';

/** Where the alarm nodes keep their details script (TbAbstractAlarmNodeConfiguration). */
const DETAILS_FIELDS: ScriptFields = { js: 'alarmDetailsBuildJs', tbel: 'alarmDetailsBuildTbel' };
const PREV_ALARM_DETAILS = 'prevAlarmDetails';

/** ThingsBoard's ALARM_DETAILS_BUILD_JS_TEMPLATE: the previous details, or an empty object. */
export const ALARM_DETAILS_BUILD_JS =
  'var details = {};\n' +
  'if (metadata.prevAlarmDetails) {\n' +
  '    details = JSON.parse(metadata.prevAlarmDetails);\n' +
  '    //remove prevAlarmDetails from metadata\n' +
  '    delete metadata.prevAlarmDetails;\n' +
  '    //now metadata is the same as it comes IN this rule node\n' +
  '}\n\n\nreturn details;';
/** ThingsBoard's ALARM_DETAILS_BUILD_TBEL_TEMPLATE. */
export const ALARM_DETAILS_BUILD_TBEL =
  'var details = {};\n' +
  'if (metadata.prevAlarmDetails != null) {\n' +
  '    details = JSON.parse(metadata.prevAlarmDetails);\n' +
  '    //remove prevAlarmDetails from metadata\n' +
  "    metadata.remove('prevAlarmDetails');\n" +
  '    //now metadata is the same as it comes IN this rule node\n' +
  '}\n\n\nreturn details;';

const DETAILS_DEFAULTS = {
  scriptLang: 'TBEL',
  alarmDetailsBuildJs: ALARM_DETAILS_BUILD_JS,
  alarmDetailsBuildTbel: ALARM_DETAILS_BUILD_TBEL,
  alarmType: 'General Alarm',
};

const isSeverity = (v: unknown): v is AlarmSeverity =>
  typeof v === 'string' && (ALARM_SEVERITIES as readonly string[]).includes(v);

/** Schema, then the details script of the chosen language (compiled, so a save names the line). */
function validateAlarmConfig(type: string) {
  const schema = RULE_NODE_CONFIGURATION_SCHEMAS[type]!;
  return (config: Record<string, unknown>): string | null =>
    configurationProblem(schema, config) ?? checkScriptConfig(config, undefined, DETAILS_FIELDS);
}

/**
 * TbAbstractAlarmNode.buildAlarmDetails: the script's JSON result; an existing alarm's details reach the
 * script as metadata.prevAlarmDetails (JSON text).
 */
function buildDetails(script: RuleScript, msg: TbMsg, previous: unknown): Promise<unknown> {
  if (previous === null || previous === undefined) return script.json(msg);
  return script.json({
    ...msg,
    metadata: { ...msg.metadata, [PREV_ALARM_DETAILS]: JSON.stringify(previous) },
  });
}

/** What the node did, with ThingsBoard's relation, the flag its message carries and the action message type. */
const RESULTS: Partial<
  Record<NonNullable<AlarmChange['kind']>, { relation: string; flag: string; action: MsgType }>
> = {
  CREATED: { relation: 'Created', flag: 'isNewAlarm', action: 'ENTITY_CREATED' },
  UPDATED: { relation: 'Updated', flag: 'isExistingAlarm', action: 'ENTITY_UPDATED' },
  SEVERITY_UPDATED: { relation: 'Updated', flag: 'isExistingAlarm', action: 'ENTITY_UPDATED' },
  CLEAR: { relation: 'Cleared', flag: 'isClearedAlarm', action: 'ALARM_CLEAR' },
};

/**
 * TbAbstractAlarmNode.onMsg after the alarm service answered: a change goes on as an ALARM message (the
 * alarm as data, the original metadata plus isNewAlarm / isExistingAlarm / isClearedAlarm) on Created,
 * Updated or Cleared, and the alarm's own action message (ENTITY_CREATED, ENTITY_UPDATED, ALARM_CLEAR) is
 * put into the originator's chain; no change is Success with the message as it came.
 */
function outcome(msg: TbMsg, change: AlarmChange, node: NodeContext | undefined): NodeOutput[] {
  const result = change.kind ? RESULTS[change.kind] : undefined;
  if (!result) return success(msg);
  const alarm = change.alarm;
  node?.enqueue(newMsg(result.action, alarm.originator, alarm, { ruleNodeId: node.id }));
  return [
    {
      relation: result.relation,
      msg: { ...msg, type: 'ALARM', data: alarm, metadata: { ...msg.metadata, [result.flag]: 'true' } },
    },
  ];
}

/** An alarm given in the message (useMessageAlarmData): ThingsBoard's Alarm JSON. */
interface MsgAlarm {
  type: string;
  severity: AlarmSeverity;
  originator?: Originator;
  details?: unknown;
  propagation: AlarmPropagation;
  startTs?: number;
  endTs?: number;
}

function msgAlarm(msg: TbMsg): MsgAlarm {
  const data = msg.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('Message data is not an alarm (a JSON object)');
  const a = data as Record<string, unknown>;
  if (typeof a.type !== 'string' || a.type === '') throw new Error("The alarm in the message has no 'type'");
  if (!isSeverity(a.severity))
    throw new Error(`The alarm in the message has no valid 'severity' (${ALARM_SEVERITIES.join(', ')})`);
  const o = a.originator as Partial<Originator> | undefined;
  const originator =
    o && typeof o.entityType === 'string' && typeof o.id === 'string'
      ? { entityType: o.entityType, id: o.id }
      : undefined;
  const ts = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
  return {
    type: a.type,
    severity: a.severity,
    originator,
    details: a.details,
    propagation: {
      propagate: a.propagate === true,
      propagateToOwner: a.propagateToOwner === true,
      propagateToTenant: a.propagateToTenant === true,
      propagateRelationTypes: Array.isArray(a.propagateRelationTypes)
        ? a.propagateRelationTypes.filter((t): t is string => typeof t === 'string')
        : [],
    },
    startTs: ts(a.startTs),
    endTs: ts(a.endTs),
  };
}

/**
 * TbCreateAlarmNode: raises the alarm of the configured type (a pattern) on the originator, or updates the
 * originator's active alarm of that type (severity, propagation, details, end time). The details come from
 * the details script, which sees the active alarm's details as metadata.prevAlarmDetails.
 */
export const createAlarmNode: NodeDefinition = {
  type: NODE_TYPES.createAlarm,
  label: 'Create Alarm',
  componentType: 'ACTION',
  description: 'Create or Update Alarm',
  details:
    "Raises an alarm of the type on the originator, or updates its active one. The details script's result becomes the alarm's details (the active alarm's details are in metadata.prevAlarmDetails). Out goes a message of type ALARM with the alarm as data and isNewAlarm or isExistingAlarm in its metadata.",
  relations: ['Created', 'Updated', 'False', 'Failure'],
  defaultConfiguration: {
    ...DETAILS_DEFAULTS,
    severity: 'CRITICAL',
    propagate: false,
    propagateToOwner: false,
    propagateToTenant: false,
    useMessageAlarmData: false,
    overwriteAlarmDetails: false,
    relationTypes: [],
    dynamicSeverity: false,
  },
  configurationSchema: RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.createAlarm],
  validate: validateAlarmConfig(NODE_TYPES.createAlarm),
  create: (config, env, node) => {
    const dynamic = config.dynamicSeverity === true;
    if (!dynamic && !isSeverity(config.severity))
      throw new Error(`Incorrect Alarm Severity value: ${String(config.severity ?? null)}`);
    const script = RuleScript.fromConfig(config, { fields: DETAILS_FIELDS, owner: scriptOwner(env, node) });
    const fromMessage = config.useMessageAlarmData === true;
    const buildsDetails = !fromMessage || config.overwriteAlarmDetails === true;
    const alarmType = typeof config.alarmType === 'string' ? config.alarmType : '';
    const severityPattern = typeof config.severity === 'string' ? config.severity : '';
    const propagation: AlarmPropagation = {
      propagate: config.propagate === true,
      propagateToOwner: config.propagateToOwner === true,
      propagateToTenant: config.propagateToTenant === true,
      propagateRelationTypes: Array.isArray(config.relationTypes) ? (config.relationTypes as string[]) : [],
    };
    const severityOf = (msg: TbMsg): AlarmSeverity => {
      const s = processPattern(severityPattern, msg);
      if (!isSeverity(s)) throw new Error('Used incorrect pattern or Alarm Severity not included in message');
      return s;
    };
    return {
      async process(msg) {
        try {
          const given = fromMessage ? msgAlarm(msg) : null;
          const type = given ? given.type : processPattern(alarmType, msg);
          const active = env.services.alarms.findActive(msg.originator, type);
          const details = buildsDetails ? await buildDetails(script, msg, active?.details) : given?.details;
          const ts = metadataTs(msg);
          const change = await env.services.alarms.createOrUpdateActive({
            originator: active ? msg.originator : (given?.originator ?? msg.originator),
            type,
            severity: given ? given.severity : severityOf(msg),
            details,
            propagation: given ? given.propagation : propagation,
            // a new alarm starts at the message's ts; an active one keeps its start and ends now
            ...(active ? {} : { startTs: given?.startTs ?? ts, endTs: given?.endTs ?? ts }),
          });
          return outcome(msg, change, node);
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
      problem: () => script.problem(),
    };
  },
};

/**
 * TbClearAlarmNode: clears the originator's active alarm of the configured type (or, for an alarm
 * originator, that alarm), with details from the details script; False when there is none to clear.
 */
export const clearAlarmNode: NodeDefinition = {
  type: NODE_TYPES.clearAlarm,
  label: 'Clear Alarm',
  componentType: 'ACTION',
  description: 'Clear Alarm',
  details:
    "Clears the originator's active alarm of the type (an alarm originator: that alarm). The details script's result becomes the alarm's details. Out goes a message of type ALARM with the alarm as data and isClearedAlarm in its metadata; False when there was no active alarm.",
  relations: ['Cleared', 'False', 'Failure'],
  defaultConfiguration: { ...DETAILS_DEFAULTS },
  configurationSchema: RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.clearAlarm],
  validate: validateAlarmConfig(NODE_TYPES.clearAlarm),
  create: (config, env, node) => {
    const script = RuleScript.fromConfig(config, { fields: DETAILS_FIELDS, owner: scriptOwner(env, node) });
    const alarmType = typeof config.alarmType === 'string' ? config.alarmType : '';
    const alarms = env.services.alarms;
    const find = (msg: TbMsg): AlarmInfo | undefined => {
      if (msg.originator.entityType === 'ALARM') {
        const row = alarms.findRow(msg.originator.id);
        return row ? alarms.infoOf(row) : undefined;
      }
      return alarms.findActive(msg.originator, processPattern(alarmType, msg));
    };
    return {
      async process(msg) {
        try {
          const alarm = find(msg);
          if (!alarm || alarm.cleared) return [{ relation: 'False', msg }];
          const details = await buildDetails(script, msg, alarm.details);
          const change = await alarms.clearActive(alarm.originator, alarm.type, { details });
          if (!change) return [{ relation: 'False', msg }];
          return outcome(msg, change, node);
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
      problem: () => script.problem(),
    };
  },
};
