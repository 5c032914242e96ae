import type { BenchHttp } from './bench-http.ts';

/** bench:ingest's calculated fields phase: the default device profile gets this many fields, half SIMPLE. */
export const CALCULATED_FIELDS = 10;

/** The server's environment for the phase: the tenant limit raised to the fields the phase defines. */
export const CALCULATED_FIELDS_ENV = { SANDBOARD_CF_MAX_PER_ENTITY: String(CALCULATED_FIELDS) };

/** ThingsBoard 4.2+'s output strategy that saves results at once (time series, latest, WebSocket). */
const IMMEDIATE = {
  type: 'IMMEDIATE',
  saveTimeSeries: true,
  saveLatest: true,
  sendWsUpdate: true,
  processCfs: true,
};

/**
 * Defines CALCULATED_FIELDS fields on the default device profile (the gateways' devices use it): SIMPLE
 * formulas and TBEL scripts over the keys the load publishes, each writing its own output key.
 */
export async function defineCalculatedFields(http: BenchHttp, token: string): Promise<void> {
  const profile = await http<{ id: { id: string } }>('/api/deviceProfileInfo/default', { token });
  const entityId = { entityType: 'DEVICE_PROFILE', id: profile.id.id };
  const args = {
    temperature: { refEntityKey: { key: 'temperature', type: 'TS_LATEST' } },
    humidity: { refEntityKey: { key: 'humidity', type: 'TS_LATEST' } },
  };
  for (let i = 0; i < CALCULATED_FIELDS; i++) {
    const simple = i % 2 === 0;
    const configuration = simple
      ? {
          type: 'SIMPLE',
          arguments: args,
          expression: `temperature * 1.8 + 32 + humidity / ${i + 1}`,
          output: { name: `cf${i}`, type: 'TIME_SERIES', decimalsByDefault: 2, strategy: IMMEDIATE },
        }
      : {
          type: 'SCRIPT',
          arguments: args,
          expression: `return {"cf${i}": temperature - humidity / ${i + 1}};`,
          output: { type: 'TIME_SERIES', strategy: IMMEDIATE },
        };
    await http('/api/calculatedField', {
      method: 'POST',
      token,
      body: JSON.stringify({ entityId, type: configuration.type, name: `Bench field ${i}`, configuration }),
    });
  }
}
