import { Type, type TSchema } from 'typebox';
import { NODE_TYPES } from './rule-engine.ts';
import { ALARM_STATUSES } from './schemas/alarms.ts';
import { PushToEdgeConfiguration } from './schemas/edge.ts';

const Scope = Type.Union(
  [Type.Literal('CLIENT_SCOPE'), Type.Literal('SERVER_SCOPE'), Type.Literal('SHARED_SCOPE')],
  {
    title: 'Attribute scope',
  },
);

const ScriptLang = Type.Union([Type.Literal('TBEL'), Type.Literal('JS')], {
  title: 'Script language',
  description: 'JS when not set',
});
/** The script fields of script nodes; the editor shows the scripts with a "test script" panel. */
const scriptFields = {
  scriptLang: Type.Optional(ScriptLang),
  jsScript: Type.Optional(Type.String({ title: 'JavaScript' })),
  tbelScript: Type.Optional(Type.String({ title: 'TBEL script' })),
};
/** The originators a generator node may use (TbMsgGeneratorNode's supported entity types). */
export const GENERATOR_ORIGINATOR_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'TENANT',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'EDGE',
  'RULE_NODE',
];

const opt = <T extends TSchema>(t: T) => Type.Optional(t);
const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const enumOf = (values: readonly string[], title?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    title ? { title } : {},
  );
const StringList = (title: string) => Type.Array(Type.String(), { title, maxItems: 1000 });
const StringMap = (title: string) => Type.Record(Type.String(), Type.String(), { title });
const FetchTo = enumOf(['DATA', 'METADATA'], 'Add to');
const TimeUnit = enumOf(['MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS'], 'Time unit');
const ENTITY_TYPES = [
  'TENANT',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'ASSET',
  'DEVICE',
  'ALARM',
  'RULE_CHAIN',
  'RULE_NODE',
  'ENTITY_VIEW',
  'WIDGETS_BUNDLE',
  'WIDGET_TYPE',
  'TENANT_PROFILE',
  'DEVICE_PROFILE',
  'ASSET_PROFILE',
  'API_USAGE_STATE',
  'TB_RESOURCE',
  'OTA_PACKAGE',
  'EDGE',
  'RPC',
  'QUEUE',
  'NOTIFICATION_TARGET',
  'NOTIFICATION_TEMPLATE',
  'NOTIFICATION_REQUEST',
  'NOTIFICATION',
  'NOTIFICATION_RULE',
  'QUEUE_STATS',
  'OAUTH2_CLIENT',
  'DOMAIN',
  'MOBILE_APP',
  'MOBILE_APP_BUNDLE',
  'CALCULATED_FIELD',
  'JOB',
  'ADMIN_SETTINGS',
  'AI_MODEL',
  'API_KEY',
] as const;
/** ThingsBoard's EntityType names, in its order. */
export const TB_ENTITY_TYPES: readonly string[] = ENTITY_TYPES;

const RelationsQuery = Type.Object(
  {
    direction: opt(enumOf(['FROM', 'TO'], 'Direction')),
    maxLevel: opt(Type.Integer({ minimum: 0, title: 'Max level' })),
    fetchLastLevelOnly: opt(Type.Boolean()),
    filters: opt(
      nullable(
        Type.Array(
          Type.Object({
            relationType: opt(nullable(Type.String())),
            entityTypes: opt(nullable(Type.Array(Type.String()))),
          }),
        ),
      ),
    ),
  },
  { title: 'Relations query' },
);

const Credentials = Type.Object(
  {
    type: enumOf(['anonymous', 'basic', 'sas', 'cert.PEM'], 'Credentials type'),
    username: opt(nullable(Type.String())),
    password: opt(nullable(Type.String())),
    caCert: opt(nullable(Type.String())),
    caCertFileName: opt(nullable(Type.String())),
    cert: opt(nullable(Type.String())),
    certFileName: opt(nullable(Type.String())),
    privateKey: opt(nullable(Type.String())),
    privateKeyFileName: opt(nullable(Type.String())),
  },
  { title: 'Credentials' },
);

const ProcessingSettings = Type.Object(
  {
    type: enumOf(['ON_EVERY_MESSAGE', 'DEDUPLICATE', 'WEBSOCKETS_ONLY', 'ADVANCED'], 'Processing'),
    deduplicationIntervalSecs: opt(Type.Integer({ minimum: 1 })),
  },
  { title: 'Processing settings' },
);

const MathArgType = enumOf(['ATTRIBUTE', 'TIME_SERIES', 'MESSAGE_BODY', 'MESSAGE_METADATA', 'CONSTANT']);
export const MATH_FUNCTIONS = [
  'ADD',
  'SUB',
  'MULT',
  'DIV',
  'SIN',
  'SINH',
  'COS',
  'COSH',
  'TAN',
  'TANH',
  'ACOS',
  'ASIN',
  'ATAN',
  'ATAN2',
  'EXP',
  'EXPM1',
  'SQRT',
  'CBRT',
  'GET_EXP',
  'HYPOT',
  'LOG',
  'LOG10',
  'LOG1P',
  'CEIL',
  'FLOOR',
  'FLOOR_DIV',
  'FLOOR_MOD',
  'ABS',
  'MIN',
  'MAX',
  'POW',
  'SIGNUM',
  'RAD',
  'DEG',
  'CUSTOM',
] as const;

const Empty = Type.Object({ version: opt(Type.Integer({ title: 'Version' })) });

/** TbAbstractAlarmNodeConfiguration: the alarm type and the script that builds the alarm's details. */
const alarmFields = {
  alarmType: opt(
    Type.String({
      title: 'Alarm type',
      description: 'Patterns: ${metadataKey}, $[dataKey]',
      maxLength: 255,
    }),
  ),
  scriptLang: opt(ScriptLang),
  alarmDetailsBuildJs: opt(Type.String({ title: 'Details builder (JavaScript)' })),
  alarmDetailsBuildTbel: opt(Type.String({ title: 'Details builder (TBEL)' })),
};

/**
 * The configuration schema of every node type Sandboard runs, with ThingsBoard's field names, for the rule
 * chain editor's generated forms (enums become dropdowns) and the server's check when a chain is saved.
 * They check types only: like ThingsBoard, a node whose configuration is well-typed but incomplete is
 * stored and fails its messages, naming what is missing.
 */
export const RULE_NODE_CONFIGURATION_SCHEMAS: Record<string, TSchema> = {
  [NODE_TYPES.msgTypeSwitch]: Empty,
  [NODE_TYPES.saveTimeseries]: Type.Object({
    defaultTTL: Type.Optional(Type.Integer({ minimum: 0, title: 'Default TTL (s)', description: '0: keep' })),
    useServerTs: opt(Type.Boolean({ title: 'Use server timestamp' })),
    processingSettings: opt(ProcessingSettings),
  }),
  [NODE_TYPES.saveAttributes]: Type.Object({
    scope: Scope,
    notifyDevice: Type.Optional(Type.Boolean({ title: 'Notify device' })),
    sendAttributesUpdatedNotification: opt(Type.Boolean()),
    updateAttributesOnlyOnValueChange: opt(Type.Boolean()),
    processingSettings: opt(ProcessingSettings),
  }),
  [NODE_TYPES.log]: Type.Object(scriptFields),
  [NODE_TYPES.scriptFilter]: Type.Object(scriptFields),
  [NODE_TYPES.scriptSwitch]: Type.Object(scriptFields),
  [NODE_TYPES.scriptTransform]: Type.Object(scriptFields),
  [NODE_TYPES.msgGenerator]: Type.Object({
    msgCount: Type.Optional(
      Type.Integer({ minimum: 0, title: 'Message count', description: '0: without end' }),
    ),
    periodInSeconds: Type.Integer({ minimum: 1, title: 'Period (s)' }),
    originatorType: Type.Optional(
      Type.Union(
        GENERATOR_ORIGINATOR_TYPES.map((t) => Type.Literal(t)),
        { title: 'Originator type' },
      ),
    ),
    originatorId: Type.Optional(Type.String({ title: 'Originator id' })),
    ...scriptFields,
  }),
  [NODE_TYPES.rpcCallRequest]: Type.Object({
    timeoutInSeconds: Type.Optional(Type.Integer({ minimum: 1, title: 'Timeout (s)' })),
  }),
  [NODE_TYPES.pushToEdge]: PushToEdgeConfiguration,
  [NODE_TYPES.msgTypeFilter]: Type.Object({ messageTypes: opt(StringList('Message types')) }),
  [NODE_TYPES.originatorTypeFilter]: Type.Object({
    originatorTypes: opt(Type.Array(enumOf(ENTITY_TYPES), { title: 'Originator types' })),
  }),
  [NODE_TYPES.originatorTypeSwitch]: Empty,
  [NODE_TYPES.checkMessage]: Type.Object({
    messageNames: opt(StringList('Message keys')),
    metadataNames: opt(StringList('Metadata keys')),
    checkAllKeys: opt(Type.Boolean({ title: 'All keys must be present' })),
  }),
  [NODE_TYPES.checkRelation]: Type.Object({
    direction: opt(enumOf(['FROM', 'TO'], 'Direction')),
    relationType: opt(nullable(Type.String({ title: 'Relation type' }))),
    checkForSingleEntity: opt(Type.Boolean({ title: 'Check relation to a specific entity' })),
    entityType: opt(nullable(Type.String({ title: 'Entity type' }))),
    entityId: opt(nullable(Type.String({ title: 'Entity id' }))),
  }),
  [NODE_TYPES.originatorAttributes]: Type.Object({
    clientAttributeNames: opt(StringList('Client attributes')),
    sharedAttributeNames: opt(StringList('Shared attributes')),
    serverAttributeNames: opt(StringList('Server attributes')),
    latestTsKeyNames: opt(StringList('Latest time series')),
    tellFailureIfAbsent: opt(Type.Boolean({ title: 'Failure if a key is absent' })),
    getLatestValueWithTs: opt(Type.Boolean({ title: 'Latest values with their ts' })),
    fetchTo: opt(FetchTo),
  }),
  [NODE_TYPES.originatorTelemetry]: Type.Object({
    latestTsKeyNames: opt(StringList('Time series keys')),
    fetchMode: opt(enumOf(['FIRST', 'LAST', 'ALL'], 'Fetch mode')),
    orderBy: opt(nullable(enumOf(['ASC', 'DESC'], 'Order'))),
    aggregation: opt(nullable(enumOf(['NONE', 'MIN', 'MAX', 'AVG', 'SUM', 'COUNT'], 'Aggregation'))),
    limit: opt(Type.Integer({ title: 'Limit' })),
    useMetadataIntervalPatterns: opt(Type.Boolean({ title: 'Interval from patterns' })),
    startInterval: opt(Type.Integer({ title: 'Start interval' })),
    startIntervalTimeUnit: opt(TimeUnit),
    endInterval: opt(Type.Integer({ title: 'End interval' })),
    endIntervalTimeUnit: opt(TimeUnit),
    startIntervalPattern: opt(nullable(Type.String())),
    endIntervalPattern: opt(nullable(Type.String())),
  }),
  [NODE_TYPES.originatorFields]: Type.Object({
    dataMapping: opt(StringMap('Field → key')),
    ignoreNullStrings: opt(Type.Boolean({ title: 'Skip empty fields' })),
    fetchTo: opt(FetchTo),
  }),
  [NODE_TYPES.customerAttributes]: Type.Object({
    dataMapping: opt(StringMap('Source → target key')),
    dataToFetch: opt(enumOf(['ATTRIBUTES', 'LATEST_TELEMETRY'], 'Data to fetch')),
    fetchTo: opt(FetchTo),
  }),
  [NODE_TYPES.tenantAttributes]: Type.Object({
    dataMapping: opt(StringMap('Source → target key')),
    dataToFetch: opt(enumOf(['ATTRIBUTES', 'LATEST_TELEMETRY'], 'Data to fetch')),
    fetchTo: opt(FetchTo),
  }),
  [NODE_TYPES.relatedEntityData]: Type.Object({
    relationsQuery: opt(RelationsQuery),
    dataMapping: opt(StringMap('Source → target key')),
    dataToFetch: opt(enumOf(['ATTRIBUTES', 'LATEST_TELEMETRY', 'FIELDS'], 'Data to fetch')),
    fetchTo: opt(FetchTo),
  }),
  [NODE_TYPES.calculateDelta]: Type.Object({
    inputValueKey: opt(Type.String({ title: 'Input value key' })),
    outputValueKey: opt(Type.String({ title: 'Output value key' })),
    useCache: opt(Type.Boolean({ title: 'Use cache' })),
    addPeriodBetweenMsgs: opt(Type.Boolean({ title: 'Add period between messages' })),
    periodValueKey: opt(nullable(Type.String({ title: 'Period value key' }))),
    round: opt(nullable(Type.Integer({ minimum: 0, maximum: 15, title: 'Decimals' }))),
    tellFailureIfDeltaIsNegative: opt(Type.Boolean({ title: 'Failure if delta is negative' })),
    excludeZeroDeltas: opt(Type.Boolean({ title: 'Exclude zero deltas' })),
  }),
  [NODE_TYPES.changeOriginator]: Type.Object({
    originatorSource: opt(enumOf(['CUSTOMER', 'TENANT', 'RELATED', 'ALARM_ORIGINATOR', 'ENTITY'], 'Source')),
    relationsQuery: opt(nullable(RelationsQuery)),
    entityType: opt(nullable(Type.String({ title: 'Entity type' }))),
    entityNamePattern: opt(nullable(Type.String({ title: 'Name pattern' }))),
  }),
  [NODE_TYPES.copyKeys]: Type.Object({
    copyFrom: opt(FetchTo),
    keys: opt(StringList('Keys (regular expressions)')),
  }),
  [NODE_TYPES.renameKeys]: Type.Object({
    renameIn: opt(FetchTo),
    renameKeysMapping: opt(StringMap('Current → new key')),
  }),
  [NODE_TYPES.deleteKeys]: Type.Object({
    deleteFrom: opt(FetchTo),
    keys: opt(StringList('Keys (regular expressions)')),
  }),
  [NODE_TYPES.jsonPath]: Type.Object({ jsonPath: opt(Type.String({ title: 'JSONPath', maxLength: 1024 })) }),
  [NODE_TYPES.splitArray]: Empty,
  [NODE_TYPES.delay]: Type.Object({
    periodInSeconds: opt(Type.Integer({ minimum: 0, title: 'Period (s)' })),
    maxPendingMsgs: opt(Type.Integer({ minimum: 1, maximum: 100_000, title: 'Max pending messages' })),
    useMetadataPeriodInSecondsPatterns: opt(Type.Boolean({ title: 'Period from pattern' })),
    periodInSecondsPattern: opt(nullable(Type.String())),
  }),
  [NODE_TYPES.msgCount]: Type.Object({
    interval: opt(Type.Integer({ minimum: 1, title: 'Interval (s)' })),
    telemetryPrefix: opt(Type.String({ title: 'Telemetry prefix' })),
  }),
  [NODE_TYPES.assignToCustomer]: Type.Object({
    customerNamePattern: opt(Type.String({ title: 'Customer title pattern' })),
    createCustomerIfNotExists: opt(Type.Boolean({ title: 'Create the customer if it does not exist' })),
  }),
  [NODE_TYPES.unassignFromCustomer]: Type.Object({
    customerNamePattern: opt(nullable(Type.String({ title: 'Customer title pattern' }))),
  }),
  [NODE_TYPES.deleteAttributes]: Type.Object({
    scope: opt(Scope),
    keys: opt(StringList('Keys')),
    sendAttributesDeletedNotification: opt(Type.Boolean()),
    notifyDevice: opt(Type.Boolean()),
  }),
  [NODE_TYPES.math]: Type.Object({
    operation: opt(enumOf(MATH_FUNCTIONS, 'Function')),
    arguments: opt(
      Type.Array(
        Type.Object({
          name: opt(nullable(Type.String())),
          type: MathArgType,
          key: opt(nullable(Type.String())),
          attributeScope: opt(nullable(Type.String())),
          defaultValue: opt(nullable(Type.Number())),
        }),
        { maxItems: 16, title: 'Arguments' },
      ),
    ),
    customFunction: opt(nullable(Type.String({ maxLength: 256, title: 'Formula' }))),
    result: opt(
      Type.Object({
        type: MathArgType,
        key: opt(nullable(Type.String())),
        resultValuePrecision: opt(Type.Integer({ minimum: 0, maximum: 15 })),
        addToBody: opt(Type.Boolean()),
        addToMetadata: opt(Type.Boolean()),
        attributeScope: opt(nullable(Type.String())),
      }),
    ),
  }),
  [NODE_TYPES.rpcCallReply]: Type.Object({
    serviceIdMetaDataAttribute: opt(nullable(Type.String())),
    sessionIdMetaDataAttribute: opt(nullable(Type.String())),
    requestIdMetaDataAttribute: opt(nullable(Type.String({ title: 'Request id metadata key' }))),
  }),
  [NODE_TYPES.restCallReply]: Type.Object({
    serviceIdMetaDataAttribute: opt(nullable(Type.String({ title: 'Service id metadata key' }))),
    requestIdMetaDataAttribute: opt(nullable(Type.String({ title: 'Request UUID metadata key' }))),
  }),
  [NODE_TYPES.restApiCall]: Type.Object({
    restEndpointUrlPattern: opt(Type.String({ title: 'URL pattern', maxLength: 4096 })),
    requestMethod: opt(enumOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'], 'Method')),
    headers: opt(nullable(StringMap('Headers'))),
    queryParams: opt(nullable(Type.Array(Type.Object({ key: Type.String(), value: Type.String() })))),
    readTimeoutMs: opt(Type.Integer({ minimum: 0, title: 'Read timeout (ms)' })),
    maxParallelRequestsCount: opt(Type.Integer({ minimum: 0 })),
    parseToPlainText: opt(Type.Boolean()),
    ignoreRequestBody: opt(Type.Boolean()),
    requestBodyTemplate: opt(nullable(Type.String())),
    maxInMemoryBufferSizeInKb: opt(Type.Integer({ minimum: 0, maximum: 25_000 })),
    enableProxy: opt(Type.Boolean()),
    credentials: opt(nullable(Credentials)),
  }),
  [NODE_TYPES.mqtt]: Type.Object({
    topicPattern: opt(Type.String({ title: 'Topic pattern' })),
    host: opt(nullable(Type.String({ title: 'Host' }))),
    port: opt(Type.Integer({ minimum: 1, maximum: 65_535, title: 'Port' })),
    connectTimeoutSec: opt(Type.Integer({ minimum: 1, maximum: 200, title: 'Connect timeout (s)' })),
    clientId: opt(nullable(Type.String())),
    appendClientIdSuffix: opt(Type.Boolean()),
    retainedMessage: opt(Type.Boolean()),
    cleanSession: opt(Type.Boolean()),
    ssl: opt(Type.Boolean()),
    parseToPlainText: opt(Type.Boolean()),
    protocolVersion: opt(enumOf(['MQTT_3_1', 'MQTT_3_1_1', 'MQTT_5'], 'Protocol')),
    credentials: opt(nullable(Credentials)),
  }),
  [NODE_TYPES.ruleChainInput]: Type.Object({
    ruleChainId: opt(nullable(Type.String({ title: 'Rule chain id' }))),
    forwardMsgToDefaultRuleChain: opt(Type.Boolean({ title: "Forward to the originator's default chain" })),
  }),
  [NODE_TYPES.ruleChainOutput]: Empty,
  [NODE_TYPES.deviceProfile]: Type.Object({
    persistAlarmRulesState: opt(Type.Boolean()),
    fetchAlarmRulesStateOnStart: opt(Type.Boolean()),
  }),
  [NODE_TYPES.pushToCloud]: Type.Object({ scope: opt(Scope) }),
  [NODE_TYPES.createAlarm]: Type.Object({
    ...alarmFields,
    severity: opt(
      Type.String({
        title: 'Alarm severity',
        description:
          'CRITICAL, MAJOR, MINOR, WARNING or INDETERMINATE; with dynamic severity, a pattern such as ${severity}',
        maxLength: 255,
      }),
    ),
    dynamicSeverity: opt(Type.Boolean({ title: 'Dynamic severity (severity is a pattern)' })),
    propagate: opt(Type.Boolean({ title: 'Propagate alarm to related entities' })),
    propagateToOwner: opt(Type.Boolean({ title: 'Propagate alarm to entity owner' })),
    propagateToTenant: opt(Type.Boolean({ title: 'Propagate alarm to tenant' })),
    relationTypes: opt(
      nullable(Type.Array(Type.String(), { title: 'Relation types to propagate', maxItems: 100 })),
    ),
    useMessageAlarmData: opt(Type.Boolean({ title: 'Use message alarm data' })),
    overwriteAlarmDetails: opt(Type.Boolean({ title: 'Overwrite alarm details' })),
  }),
  [NODE_TYPES.clearAlarm]: Type.Object(alarmFields),
  [NODE_TYPES.checkAlarmStatus]: Type.Object({
    alarmStatusList: opt(Type.Array(enumOf(ALARM_STATUSES), { title: 'Alarm statuses', maxItems: 4 })),
  }),
};
