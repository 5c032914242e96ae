import { describe, expect, it } from 'vitest';
import { componentDescriptor } from '../../../main/rule-engine/component-descriptors.ts';
import { BUILT_IN_NODES } from '../../../main/rule-engine/node-registry.ts';
import {
  ALARM_DETAILS_BUILD_JS,
  ALARM_DETAILS_BUILD_TBEL,
} from '../../../main/rule-engine/nodes/alarm-nodes.ts';
import { MSG_TYPE_RELATIONS, NODE_TYPES } from '../../../shared/rule-engine.ts';

const SF = ['Success', 'Failure'];
const TF = ['True', 'False', 'Failure'];
const FETCH_TO_METADATA = { fetchTo: 'METADATA' };

/**
 * What ThingsBoard's NodeConfiguration.defaultConfiguration() gives for each node class Sandboard runs, the
 * relations its @RuleNode declares (with Failure, as ThingsBoard's component discovery adds it), its
 * configuration version and palette group (read from thingsboard/thingsboard, rule-engine-components).
 */
const THINGSBOARD: Record<
  string,
  { config: Record<string, unknown>; relations: string[]; version: number; type: string }
> = {
  [NODE_TYPES.msgTypeFilter]: {
    config: { messageTypes: ['POST_ATTRIBUTES_REQUEST', 'POST_TELEMETRY_REQUEST', 'TO_SERVER_RPC_REQUEST'] },
    relations: TF,
    version: 0,
    type: 'FILTER',
  },
  [NODE_TYPES.originatorTypeFilter]: {
    config: { originatorTypes: ['DEVICE'] },
    relations: TF,
    version: 0,
    type: 'FILTER',
  },
  [NODE_TYPES.checkMessage]: {
    config: { messageNames: [], metadataNames: [], checkAllKeys: true },
    relations: TF,
    version: 0,
    type: 'FILTER',
  },
  [NODE_TYPES.checkRelation]: {
    config: { direction: 'FROM', relationType: 'Contains', checkForSingleEntity: true },
    relations: TF,
    version: 1,
    type: 'FILTER',
  },
  [NODE_TYPES.originatorAttributes]: {
    config: {
      clientAttributeNames: [],
      sharedAttributeNames: [],
      serverAttributeNames: [],
      latestTsKeyNames: [],
      tellFailureIfAbsent: true,
      getLatestValueWithTs: false,
      ...FETCH_TO_METADATA,
    },
    relations: SF,
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.originatorTelemetry]: {
    config: {
      latestTsKeyNames: [],
      fetchMode: 'FIRST',
      startIntervalTimeUnit: 'MINUTES',
      startInterval: 2,
      endIntervalTimeUnit: 'MINUTES',
      endInterval: 1,
      useMetadataIntervalPatterns: false,
      startIntervalPattern: '',
      endIntervalPattern: '',
      orderBy: 'ASC',
      aggregation: 'NONE',
      limit: 1000,
    },
    relations: SF,
    version: 2,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.originatorFields]: {
    config: {
      dataMapping: { name: 'originatorName', type: 'originatorType' },
      ignoreNullStrings: false,
      ...FETCH_TO_METADATA,
    },
    relations: SF,
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.customerAttributes]: {
    config: { dataMapping: { alarmThreshold: 'threshold' }, dataToFetch: 'ATTRIBUTES', ...FETCH_TO_METADATA },
    relations: SF,
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.tenantAttributes]: {
    config: { dataMapping: { alarmThreshold: 'threshold' }, dataToFetch: 'ATTRIBUTES', ...FETCH_TO_METADATA },
    relations: SF,
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.relatedEntityData]: {
    config: {
      dataMapping: { serialNumber: 'sn' },
      dataToFetch: 'ATTRIBUTES',
      ...FETCH_TO_METADATA,
      relationsQuery: {
        direction: 'FROM',
        maxLevel: 1,
        filters: [{ relationType: 'Contains', entityTypes: [] }],
        fetchLastLevelOnly: false,
      },
    },
    relations: SF,
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.calculateDelta]: {
    config: {
      inputValueKey: 'pulseCounter',
      outputValueKey: 'delta',
      useCache: true,
      addPeriodBetweenMsgs: false,
      periodValueKey: 'periodInMs',
      tellFailureIfDeltaIsNegative: true,
      excludeZeroDeltas: false,
    },
    relations: ['Success', 'Failure', 'Other'],
    version: 1,
    type: 'ENRICHMENT',
  },
  [NODE_TYPES.changeOriginator]: {
    config: {
      originatorSource: 'CUSTOMER',
      relationsQuery: {
        direction: 'FROM',
        maxLevel: 1,
        filters: [{ relationType: 'Contains', entityTypes: [] }],
        fetchLastLevelOnly: false,
      },
    },
    relations: SF,
    version: 0,
    type: 'TRANSFORMATION',
  },
  [NODE_TYPES.copyKeys]: {
    config: { keys: [], copyFrom: 'DATA' },
    relations: SF,
    version: 2,
    type: 'TRANSFORMATION',
  },
  [NODE_TYPES.renameKeys]: {
    config: { renameKeysMapping: { temperatureCelsius: 'temperature' }, renameIn: 'DATA' },
    relations: SF,
    version: 2,
    type: 'TRANSFORMATION',
  },
  [NODE_TYPES.deleteKeys]: {
    config: { keys: [], deleteFrom: 'DATA' },
    relations: SF,
    version: 2,
    type: 'TRANSFORMATION',
  },
  [NODE_TYPES.jsonPath]: { config: { jsonPath: '$' }, relations: SF, version: 0, type: 'TRANSFORMATION' },
  [NODE_TYPES.splitArray]: { config: { version: 0 }, relations: SF, version: 0, type: 'TRANSFORMATION' },
  [NODE_TYPES.delay]: {
    config: { periodInSeconds: 60, maxPendingMsgs: 1000, useMetadataPeriodInSecondsPatterns: false },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.msgCount]: {
    config: { interval: 1, telemetryPrefix: 'messageCount' },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.assignToCustomer]: {
    config: { customerNamePattern: '', createCustomerIfNotExists: false },
    relations: SF,
    version: 1,
    type: 'ACTION',
  },
  [NODE_TYPES.unassignFromCustomer]: {
    config: { customerNamePattern: '' },
    relations: SF,
    version: 1,
    type: 'ACTION',
  },
  [NODE_TYPES.deleteAttributes]: {
    config: {
      scope: 'SERVER_SCOPE',
      keys: [],
      sendAttributesDeletedNotification: false,
      notifyDevice: false,
    },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.math]: {
    config: {
      operation: 'CUSTOM',
      customFunction: '(x - 32) / 1.8',
      arguments: [{ name: 'x', type: 'MESSAGE_BODY', key: 'temperature' }],
      result: {
        type: 'MESSAGE_BODY',
        key: 'temperatureCelsius',
        resultValuePrecision: 2,
        addToBody: false,
        addToMetadata: false,
        attributeScope: null,
      },
    },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.saveTimeseries]: {
    config: { defaultTTL: 0, useServerTs: false, processingSettings: { type: 'ON_EVERY_MESSAGE' } },
    relations: SF,
    version: 1,
    type: 'ACTION',
  },
  [NODE_TYPES.saveAttributes]: {
    config: {
      processingSettings: { type: 'ON_EVERY_MESSAGE' },
      scope: 'SERVER_SCOPE',
      notifyDevice: false,
      sendAttributesUpdatedNotification: false,
      updateAttributesOnlyOnValueChange: true,
    },
    relations: SF,
    version: 3,
    type: 'ACTION',
  },
  [NODE_TYPES.rpcCallRequest]: {
    config: { timeoutInSeconds: 60 },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.rpcCallReply]: {
    config: {
      serviceIdMetaDataAttribute: 'serviceId',
      sessionIdMetaDataAttribute: 'sessionId',
      requestIdMetaDataAttribute: 'requestId',
    },
    relations: SF,
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.createAlarm]: {
    config: {
      scriptLang: 'TBEL',
      alarmDetailsBuildJs: ALARM_DETAILS_BUILD_JS,
      alarmDetailsBuildTbel: ALARM_DETAILS_BUILD_TBEL,
      alarmType: 'General Alarm',
      severity: 'CRITICAL',
      propagate: false,
      propagateToOwner: false,
      propagateToTenant: false,
      useMessageAlarmData: false,
      overwriteAlarmDetails: false,
      relationTypes: [],
      dynamicSeverity: false,
    },
    relations: ['Created', 'Updated', 'False', 'Failure'],
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.clearAlarm]: {
    config: {
      scriptLang: 'TBEL',
      alarmDetailsBuildJs: ALARM_DETAILS_BUILD_JS,
      alarmDetailsBuildTbel: ALARM_DETAILS_BUILD_TBEL,
      alarmType: 'General Alarm',
    },
    relations: ['Cleared', 'False', 'Failure'],
    version: 0,
    type: 'ACTION',
  },
  [NODE_TYPES.checkAlarmStatus]: {
    config: { alarmStatusList: ['ACTIVE_ACK', 'ACTIVE_UNACK'] },
    relations: TF,
    version: 0,
    type: 'FILTER',
  },
  [NODE_TYPES.pushToEdge]: { config: { scope: 'SERVER_SCOPE' }, relations: SF, version: 0, type: 'ACTION' },
  [NODE_TYPES.deviceProfile]: {
    config: { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false },
    relations: [
      'Alarm Created',
      'Alarm Updated',
      'Alarm Severity Updated',
      'Alarm Cleared',
      'Success',
      'Failure',
    ],
    version: 1,
    type: 'ACTION',
  },
  [NODE_TYPES.restApiCall]: {
    config: {
      restEndpointUrlPattern: 'http://localhost/api',
      requestMethod: 'POST',
      headers: { 'Content-Type': 'application/json' },
      queryParams: [],
      readTimeoutMs: 0,
      maxParallelRequestsCount: 0,
      parseToPlainText: false,
      enableProxy: false,
      useSystemProxyProperties: false,
      proxyHost: null,
      proxyPort: 0,
      proxyUser: null,
      proxyPassword: null,
      credentials: { type: 'anonymous' },
      ignoreRequestBody: false,
      requestBodyTemplate: null,
      maxInMemoryBufferSizeInKb: 256,
    },
    relations: SF,
    version: 4,
    type: 'EXTERNAL',
  },
  [NODE_TYPES.mqtt]: {
    config: {
      topicPattern: 'my-topic',
      port: 1883,
      connectTimeoutSec: 10,
      cleanSession: true,
      ssl: false,
      retainedMessage: false,
      parseToPlainText: false,
      protocolVersion: 'MQTT_3_1_1',
      credentials: { type: 'anonymous' },
    },
    relations: SF,
    version: 2,
    type: 'EXTERNAL',
  },
  [NODE_TYPES.ruleChainInput]: {
    config: { forwardMsgToDefaultRuleChain: false },
    relations: ['Failure'],
    version: 1,
    type: 'FLOW',
  },
  [NODE_TYPES.ruleChainOutput]: { config: { version: 0 }, relations: [], version: 0, type: 'FLOW' },
};

describe('node set: ThingsBoard class names, configuration defaults, relation types', () => {
  const byType = new Map(BUILT_IN_NODES.map((d) => [d.type, d]));

  it.each(Object.entries(THINGSBOARD))('%s', (type, tb) => {
    const def = byType.get(type);
    expect(def, `${type} is registered`).toBeDefined();
    const descriptor = componentDescriptor(def!);
    expect(descriptor.clazz).toBe(type);
    expect(descriptor.type).toBe(tb.type);
    expect(descriptor.configurationVersion).toBe(tb.version);
    expect(descriptor.configurationDescriptor.nodeDefinition.defaultConfiguration).toEqual(tb.config);
    expect(descriptor.configurationDescriptor.nodeDefinition.relationTypes).toEqual(tb.relations);
    // The default configuration is valid for the node's own check.
    expect(def!.validate(def!.defaultConfiguration)).toBeNull();
  });

  it('the switches emit ThingsBoard relation names: every message type and every entity type', () => {
    const sw = componentDescriptor(byType.get(NODE_TYPES.msgTypeSwitch)!).configurationDescriptor
      .nodeDefinition;
    expect(sw.relationTypes).toEqual(
      expect.arrayContaining(['Post telemetry', 'RPC Request to Device', 'Other', 'Failure']),
    );
    expect(sw.relationTypes).toHaveLength(
      new Set([...Object.values(MSG_TYPE_RELATIONS), 'Other', 'Failure']).size,
    );
    const os = componentDescriptor(byType.get(NODE_TYPES.originatorTypeSwitch)!).configurationDescriptor
      .nodeDefinition;
    expect(os.relationTypes).toEqual(
      expect.arrayContaining(['Device', 'Asset', 'Entity View', 'Tenant', 'Customer', 'AI model']),
    );
    expect(os.defaultConfiguration).toEqual({ version: 0 });
  });

  it("the alarm nodes' details script templates are ThingsBoard's, and the script is checked when saved", () => {
    // TbAbstractAlarmNodeConfiguration.ALARM_DETAILS_BUILD_{JS,TBEL}_TEMPLATE
    expect(ALARM_DETAILS_BUILD_TBEL).toBe(
      "var details = {};\nif (metadata.prevAlarmDetails != null) {\n    details = JSON.parse(metadata.prevAlarmDetails);\n    //remove prevAlarmDetails from metadata\n    metadata.remove('prevAlarmDetails');\n    //now metadata is the same as it comes IN this rule node\n}\n\n\nreturn details;",
    );
    expect(ALARM_DETAILS_BUILD_JS).toBe(
      'var details = {};\nif (metadata.prevAlarmDetails) {\n    details = JSON.parse(metadata.prevAlarmDetails);\n    //remove prevAlarmDetails from metadata\n    delete metadata.prevAlarmDetails;\n    //now metadata is the same as it comes IN this rule node\n}\n\n\nreturn details;',
    );
    const create = byType.get(NODE_TYPES.createAlarm)!;
    expect(
      create.validate({ ...create.defaultConfiguration, alarmDetailsBuildTbel: 'return x ===;' }),
    ).toMatch(/^'alarmDetailsBuildTbel' line 1: /);
    expect(create.validate({ ...create.defaultConfiguration, propagate: 'yes' })).toMatch(/'propagate'/);
    expect(
      byType.get(NODE_TYPES.checkAlarmStatus)!.validate({ alarmStatusList: ['ACTIVE', 'CLEARED_ACK'] }),
    ).toMatch(/alarmStatusList\[0\]/);
  });

  it("the script nodes are in ThingsBoard's palette groups; the switch names its relations itself", () => {
    const group = (type: string) => componentDescriptor(byType.get(type)!).type;
    expect(group(NODE_TYPES.scriptFilter)).toBe('FILTER');
    expect(group(NODE_TYPES.scriptSwitch)).toBe('FILTER');
    expect(group(NODE_TYPES.scriptTransform)).toBe('TRANSFORMATION');
    expect(group(NODE_TYPES.msgGenerator)).toBe('ACTION');
    const sw = componentDescriptor(byType.get(NODE_TYPES.scriptSwitch)!).configurationDescriptor
      .nodeDefinition;
    expect(sw.customRelations).toBe(true);
    expect(sw.docUrl).toBe('https://thingsboard.io/docs/user-guide/rule-engine-2-0/nodes/filter/switch/');
  });

  it('a type check that fails names the field', () => {
    const attrs = byType.get(NODE_TYPES.saveAttributes)!;
    expect(attrs.validate({ scope: 'NOWHERE' })).toMatch(
      /'scope' must be one of CLIENT_SCOPE, SERVER_SCOPE, SHARED_SCOPE/,
    );
    expect(
      byType.get(NODE_TYPES.math)!.validate({
        operation: 'CUSTOM',
        customFunction: 'x +',
        arguments: [{ name: 'x', type: 'CONSTANT', key: '1' }],
      }),
    ).toMatch(/'customFunction'/);
    expect(byType.get(NODE_TYPES.jsonPath)!.validate({ jsonPath: '$.a[' })).toMatch(/'jsonPath'/);
    expect(byType.get(NODE_TYPES.delay)!.validate({ periodInSeconds: 'soon' })).toMatch(
      /'periodInSeconds' must be integer/,
    );
  });
});
