import type { CfType } from '../../api/calculated-fields-api.ts';

const latest = (key: string) => ({ refEntityKey: { key, type: 'TS_LATEST' } });

/** A starting configuration of each type, in ThingsBoard 4.3's shape (from its documentation's examples). */
export const CF_TEMPLATES: Record<CfType, Record<string, unknown>> = {
  SIMPLE: {
    type: 'SIMPLE',
    arguments: { temperature: latest('temperature') },
    expression: '(temperature - 32) / 1.8',
    output: { name: 'temperatureC', type: 'TIME_SERIES', decimalsByDefault: 2 },
  },
  SCRIPT: {
    type: 'SCRIPT',
    arguments: {
      temperature: latest('temperature'),
      altitude: { refEntityKey: { key: 'altitude', type: 'ATTRIBUTE', scope: 'SERVER_SCOPE' } },
    },
    expression:
      'var temperatureK = (temperature - 32) * (5 / 9) + 273.15;\nvar pressure = 101325 * Math.pow((1 - 2.25577e-5 * altitude), 5.25588);\nreturn {"airDensity": toFixed(pressure / (287.05 * temperatureK), 2)};',
    output: { type: 'TIME_SERIES' },
  },
  GEOFENCING: {
    type: 'GEOFENCING',
    entityCoordinates: { latitudeKeyName: 'latitude', longitudeKeyName: 'longitude' },
    zoneGroups: {
      allowedZones: {
        perimeterKeyName: 'zone',
        reportStrategy: 'REPORT_TRANSITION_EVENTS_AND_PRESENCE_STATUS',
      },
    },
    output: { type: 'TIME_SERIES' },
  },
  ALARM: {
    type: 'ALARM',
    arguments: { temperature: latest('temperature') },
    createRules: {
      CRITICAL: {
        condition: {
          type: 'SIMPLE',
          expression: {
            type: 'SIMPLE',
            filters: [
              {
                argument: 'temperature',
                valueType: 'NUMERIC',
                predicates: [{ type: 'NUMERIC', operation: 'GREATER', value: { staticValue: 30 } }],
              },
            ],
            operation: 'AND',
          },
        },
      },
    },
    clearRule: {
      condition: {
        type: 'SIMPLE',
        expression: {
          type: 'SIMPLE',
          filters: [
            {
              argument: 'temperature',
              valueType: 'NUMERIC',
              predicates: [{ type: 'NUMERIC', operation: 'LESS', value: { staticValue: 25 } }],
            },
          ],
        },
      },
    },
  },
  PROPAGATION: {
    type: 'PROPAGATION',
    relation: { direction: 'TO', relationType: 'Contains' },
    arguments: { temperature: latest('temperature') },
    applyExpressionToResolvedArguments: false,
    output: { type: 'TIME_SERIES' },
  },
  RELATED_ENTITIES_AGGREGATION: {
    type: 'RELATED_ENTITIES_AGGREGATION',
    relation: { direction: 'FROM', relationType: 'Contains' },
    arguments: { temperature: latest('temperature') },
    metrics: { avgTemperature: { function: 'AVG', input: { type: 'key', key: 'temperature' } } },
    output: { type: 'TIME_SERIES' },
  },
  ENTITY_AGGREGATION: {
    type: 'ENTITY_AGGREGATION',
    arguments: { power: latest('power') },
    metrics: { avgPower: { function: 'AVG', input: { type: 'key', key: 'power' } } },
    interval: { type: 'HOUR' },
    output: { type: 'TIME_SERIES' },
  },
};
