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
 * How the SCRIPT fields are written: arithmetic (`return {"cf1": t - h / 2};`, computed without the script
 * sandbox, as most real fields are) or with statements the sandbox runs (same results).
 */
export type ScriptKind = 'arithmetic' | 'sandbox';

/**
 * Defines CALCULATED_FIELDS fields on the default device profile (the gateways' devices use it): SIMPLE
 * formulas and TBEL scripts over the keys the load publishes, each writing its own output key.
 */
export async function defineCalculatedFields(
  http: BenchHttp,
  token: string,
  scripts: ScriptKind = 'arithmetic',
): Promise<void> {
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
          expression:
            scripts === 'arithmetic'
              ? `return {"cf${i}": temperature - humidity / ${i + 1}};`
              : `var d = temperature - humidity / ${i + 1}; if (d > 1000) { d = 1000; } return {"cf${i}": d};`,
          output: { type: 'TIME_SERIES', strategy: IMMEDIATE },
        };
    await http('/api/calculatedField', {
      method: 'POST',
      token,
      body: JSON.stringify({ entityId, type: configuration.type, name: `Bench field ${i}`, configuration }),
    });
  }
}

/**
 * Proves the fields computed: every output key of the device has history and its latest value is what
 * the field's formula gives on the device's latest temperature and humidity (polled until the last
 * results are saved). Returns a line for the figures; throws when a field wrote nothing or a wrong value.
 */
export async function checkCalculatedOutputs(
  http: BenchHttp,
  token: string,
  deviceId: string,
): Promise<string> {
  const keys = Array.from({ length: CALCULATED_FIELDS }, (_, i) => `cf${i}`);
  const expected = (i: number, t: number, h: number) =>
    i % 2 === 0 ? Math.round((t * 1.8 + 32 + h / (i + 1)) * 100) / 100 : t - h / (i + 1);
  let wrong = '';
  for (let attempt = 0; attempt < 50; attempt++) {
    const latest = await http<Record<string, { ts: number; value: unknown }[]>>(
      `/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?keys=temperature,humidity,${keys.join(',')}&useStrictDataTypes=true`,
      { token },
    );
    const t = Number(latest.temperature?.[0]?.value);
    const h = Number(latest.humidity?.[0]?.value);
    wrong = keys
      .filter((k, i) => Math.abs(Number(latest[k]?.[0]?.value) - expected(i, t, h)) > 0.01 || !latest[k])
      .join(', ');
    if (!wrong) {
      const history = await http<Record<string, unknown[]>>(
        `/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?keys=temperature,${keys.join(',')}&startTs=0&endTs=${Date.now() + 86_400_000}&limit=100000`,
        { token },
      );
      const points = keys.map((k) => history[k]?.length ?? 0);
      if (points.some((n) => n === 0))
        throw new Error(`calculated fields wrote no history: ${points.join('/')}`);
      return `${CALCULATED_FIELDS} outputs match their formulas; ${Math.min(...points)}-${Math.max(...points)} points each, of ${history.temperature?.length ?? 0} input points`;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`calculated fields' outputs missing or wrong: ${wrong}`);
}
