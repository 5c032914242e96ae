/** ThingsBoard 4.3's CalculatedFieldType: the kinds of calculated field the platform runs and the UI offers. */
export const CF_TYPES = [
  'SIMPLE',
  'SCRIPT',
  'GEOFENCING',
  'ALARM',
  'PROPAGATION',
  'RELATED_ENTITIES_AGGREGATION',
  'ENTITY_AGGREGATION',
] as const;
export type CfType = (typeof CF_TYPES)[number];
