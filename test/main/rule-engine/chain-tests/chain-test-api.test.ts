import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ChainTestReport } from '../../../../shared/schemas/chain-tests.ts';
import { expectTbError, useSharedPlatform } from '../../api/api-kit.ts';
import { chainApi, chainFile, fileNode, TB } from '../chain-kit.ts';

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../fixtures/chain-tests/${name}`, import.meta.url)), 'utf8'),
  ) as Record<string, unknown>;

describe('POST /api/sandboard/ruleChain/{id}/test', () => {
  const platform = useSharedPlatform();

  async function importThermostat(token: string) {
    const res = await platform().http('/api/sandboard/ruleChain/import', {
      method: 'POST',
      token,
      json: fixture('thermostat-chain.json'),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as {
      ruleChain: { id: { id: string } };
      metadata: { nodes: { id: { id: string }; name: string }[] };
    };
  }

  it("runs the cases through the running instance's chain, with its node ids in each case's trace, and leaves nothing in the user's data", async () => {
    const token = await platform().login();
    const { ruleChain, metadata } = await importThermostat(token);
    const res = await platform().http(`/api/sandboard/ruleChain/${ruleChain.id.id}/test`, {
      method: 'POST',
      token,
      json: fixture('thermostat-cases.json'),
    });
    expect(res.status).toBe(200);
    const report = (await res.json()) as ChainTestReport;
    expect(report.cases.map((c) => [c.name, c.passed, c.failures])).toEqual([
      ['a hot reading in Fahrenheit raises High Temperature', true, []],
      ['a normal reading clears it', true, []],
      ["attributes do not go through the thermostat's script", true, []],
    ]);
    expect(report).toMatchObject({ chain: 'Thermostat alarms', passed: 3, failed: 0 });
    expect(report.cases[0]!.relations).toMatchObject({
      'Too hot': ['True'],
      'Raise High Temperature': ['Created'],
    });
    // the trace names the running chain's nodes, as the editor's message trace does
    const ids = new Map(metadata.nodes.map((n) => [n.id.id, n.name]));
    const trace = report.cases[0]!.trace;
    expect(trace.length).toBeGreaterThan(0);
    for (const e of trace) {
      expect(e.ruleChainId).toBe(ruleChain.id.id);
      expect(ids.get(e.nodeId)).toBe(e.nodeName);
    }
    expect(trace.filter((e) => e.direction === 'IN').map((e) => e.nodeName)).toEqual(
      expect.arrayContaining([
        'Message Type Switch',
        'To Celsius',
        'Too hot',
        'Raise High Temperature',
        'Save Timeseries',
      ]),
    );

    // nothing of the test is in the user's data: no device, no alarm, no debug events on the chain's nodes
    const device = await platform().http(
      `/api/tenant/devices?deviceName=${encodeURIComponent('Thermostat T1')}`,
      {
        token,
      },
    );
    expect(device.status).toBe(404);
    const alarms = await platform().http('/api/v2/alarms?pageSize=10&page=0', { token });
    expect(((await alarms.json()) as { totalElements: number }).totalElements).toBe(0);
    const tooHot = metadata.nodes.find((n) => n.name === 'Too hot')!;
    const events = await platform().http(`/api/ruleNode/${tooHot.id.id}/debugEvents`, { token });
    expect(await events.json()).toEqual([]);
  });

  it('answers per case what did not match', async () => {
    const token = await platform().login();
    const { ruleChain } = await importThermostat(token);
    const cases = fixture('thermostat-cases.json') as { cases: { expect: Record<string, unknown> }[] };
    cases.cases[0]!.expect.latest = { temperature: 50 };
    const res = await platform().http(`/api/sandboard/ruleChain/${ruleChain.id.id}/test`, {
      method: 'POST',
      token,
      json: cases,
    });
    const report = (await res.json()) as ChainTestReport;
    expect(report).toMatchObject({ passed: 2, failed: 1 });
    expect(report.cases[0]!.failures).toEqual(['latest temperature: expected 50, got 55']);
  });

  it('refuses malformed cases naming the JSON path, an unknown chain, an EDGE chain and a customer user', async () => {
    const token = await platform().login();
    const { ruleChain } = await importThermostat(token);
    const bad = await platform().http(`/api/sandboard/ruleChain/${ruleChain.id.id}/test`, {
      method: 'POST',
      token,
      json: {
        version: 1,
        cases: [{ name: 'x', input: { type: 'POST_TELEMETRY_REQUEST', data: {} }, expect: { latest: 5 } }],
      },
    });
    await expectTbError(bad, 400, 30, /cases\[0\]\.expect\.latest: must be an object/);
    const missing = await platform().http(
      '/api/sandboard/ruleChain/9b1c6f5e-0000-4000-8000-000000000000/test',
      {
        method: 'POST',
        token,
        json: fixture('thermostat-cases.json'),
      },
    );
    await expectTbError(missing, 404, 32);
    const edge = await platform().http('/api/ruleChain', {
      method: 'POST',
      token,
      json: { name: 'Edge chain', type: 'EDGE' },
    });
    const edgeId = ((await edge.json()) as { id: { id: string } }).id.id;
    const onEdge = await platform().http(`/api/sandboard/ruleChain/${edgeId}/test`, {
      method: 'POST',
      token,
      json: fixture('thermostat-cases.json'),
    });
    await expectTbError(onEdge, 400, 30, /Only CORE rule chains/);
    const customer = await platform().login('customer@thingsboard.org', 'customer');
    const denied = await platform().http(`/api/sandboard/ruleChain/${ruleChain.id.id}/test`, {
      method: 'POST',
      token: customer,
      json: fixture('thermostat-cases.json'),
    });
    await expectTbError(denied, 403, 20);
  });

  it('copies the chains a rule chain node calls, so a nested chain is tested with its caller', async () => {
    const token = await platform().login();
    const api = chainApi(platform(), token);
    const classifier = await api.importFile(
      chainFile(
        'Classifier',
        [
          fileNode(TB.checkFields, 'Has alarm flag', {
            messageNames: ['alarm'],
            metadataNames: [],
            checkAllKeys: true,
          }),
          fileNode(TB.output, 'Hot', { version: 0 }),
          fileNode(TB.output, 'Cold', { version: 0 }),
        ],
        [
          { fromIndex: 0, toIndex: 1, type: 'True' },
          { fromIndex: 0, toIndex: 2, type: 'False' },
        ],
      ),
    );
    const caller = await api.importFile(
      chainFile(
        'Caller',
        [
          fileNode(TB.input, 'Classify', {
            ruleChainId: classifier.ruleChain.id.id,
            forwardMsgToDefaultRuleChain: false,
          }),
          {
            ...fileNode(TB.saveTs, 'Save hot', {
              defaultTTL: 0,
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
            }),
            configurationVersion: 1,
          },
        ],
        [{ fromIndex: 0, toIndex: 1, type: 'Hot' }],
      ),
    );
    const res = await platform().http(`/api/sandboard/ruleChain/${caller.ruleChain.id.id}/test`, {
      method: 'POST',
      token,
      json: {
        version: 1,
        cases: [
          {
            name: 'flagged goes the hot way',
            input: { type: 'POST_TELEMETRY_REQUEST', data: { alarm: true, t: 9 } },
            expect: { relations: { Classify: 'Hot', 'Has alarm flag': 'True' }, latest: { t: 9 } },
          },
          {
            name: 'unflagged is not saved',
            input: { type: 'POST_TELEMETRY_REQUEST', data: { t: 1 } },
            expect: { relations: { Classify: 'Cold', 'Save hot': [] }, latest: { t: 9 } },
          },
        ],
      },
    });
    const report = (await res.json()) as ChainTestReport;
    expect(report.cases.map((c) => c.failures)).toEqual([[], []]);
    expect(new Set(report.cases[0]!.trace.map((e) => e.ruleChainId))).toEqual(
      new Set([caller.ruleChain.id.id, classifier.ruleChain.id.id]),
    );
  });

  it("checks an asset originator's saved attributes, with a tolerance", async () => {
    const token = await platform().login();
    const api = chainApi(platform(), token);
    const chain = await api.importFile(
      chainFile(
        'Asset attributes',
        [
          {
            ...fileNode(TB.saveAttrs, 'Save attributes', {
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
              scope: 'SERVER_SCOPE',
              notifyDevice: false,
              sendAttributesUpdatedNotification: false,
              updateAttributesOnlyOnValueChange: true,
            }),
            configurationVersion: 3,
          },
        ],
        [],
      ),
    );
    const run = async (expected: Record<string, unknown>) => {
      const res = await platform().http(`/api/sandboard/ruleChain/${chain.ruleChain.id.id}/test`, {
        method: 'POST',
        token,
        json: {
          version: 1,
          cases: [
            {
              name: 'saves what the asset posts',
              input: {
                type: 'POST_ATTRIBUTES_REQUEST',
                originator: { name: 'Boiler room', type: 'ASSET', profile: 'room' },
                data: { setpoint: 21.52, mode: 'eco' },
              },
              expect: {
                relations: { 'Save attributes': 'Success' },
                attributes: { SERVER_SCOPE: expected },
                tolerance: 0.1,
              },
            },
          ],
        },
      });
      return ((await res.json()) as ChainTestReport).cases[0]!.failures;
    };
    expect(await run({ setpoint: 21.5, mode: 'eco' })).toEqual([]);
    expect(await run({ setpoint: 22, mode: 'comfort', missing: 1 })).toEqual([
      'SERVER_SCOPE attribute setpoint: expected 22 ±0.1, got 21.52',
      'SERVER_SCOPE attribute mode: expected "comfort", got "eco"',
      'SERVER_SCOPE attribute missing: expected 1, got nothing',
    ]);
  });
});
