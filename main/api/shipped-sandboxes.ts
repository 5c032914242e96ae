/**
 * The shipped sandboxes (shared/sandboxes/<id>/manifest.json and the files beside it): the catalogue
 * the "Start here" page lists, and their loading through the platform's services. A load sets up the
 * scenario's site (profiles, alarm rules, assets), creates its devices, imports its dashboard, rule
 * chain, REST connector and edge, writes its attributes and starts its simulation. Everything is found
 * by name first, so loading twice creates nothing new; the answer says what was created and what was
 * there already. A load in progress is joined, and its progress is in the status.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Value } from 'typebox/value';
import type { RuleChainMetadata } from '../../shared/rule-engine.ts';
import type { SaveDashboardRequest } from '../../shared/schemas/dashboards.ts';
import { deviceNames, type Scenario } from '../../shared/schemas/simulation.ts';
import {
  ShippedSandboxManifest,
  type CreatedEntity,
  type LoadShippedSandboxResult,
  type ShippedSandboxInfo,
  type ShippedSandboxStatus,
} from '../../shared/schemas/shipped-sandbox.ts';
import type { RestConnectorManager } from '../connectors/rest-connector-manager.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { notFound, PlatformError } from '../platform/errors.ts';
import type { Services } from '../platform/services.ts';
import type { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import type { EdgeSimulatorManager } from '../simulator/edge-simulator-manager.ts';
import { applySetup, findAsset } from '../simulator/scenario-setup.ts';
import type { SimulationManager } from '../simulator/simulation-manager.ts';

export const SANDBOXES_DIR = new URL('../../shared/sandboxes/', import.meta.url);

export interface ShippedSandbox {
  manifest: ShippedSandboxManifest;
  scenario: Scenario;
  dashboard: SaveDashboardRequest;
  ruleChain?: { name: string; metadata: RuleChainMetadata };
  restConfig?: unknown;
}

function readJson(dir: URL, file: string): unknown {
  return JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as unknown;
}

/** Reads one shipped sandbox; throws naming the file and the first schema error. */
export function readShippedSandbox(id: string, root: URL = SANDBOXES_DIR): ShippedSandbox {
  const dir = new URL(`${id}/`, root);
  const manifest = readJson(dir, 'manifest.json');
  if (!Value.Check(ShippedSandboxManifest, manifest)) {
    const first = Value.Errors(ShippedSandboxManifest, manifest)[0];
    throw new Error(`${id}/manifest.json: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`);
  }
  if (manifest.id !== id) throw new Error(`${id}/manifest.json: id must be '${id}' (its folder)`);
  return {
    manifest,
    scenario: readJson(dir, manifest.scenario) as Scenario,
    dashboard: readJson(dir, manifest.dashboard) as SaveDashboardRequest,
    ...(manifest.ruleChain
      ? { ruleChain: readJson(dir, manifest.ruleChain) as ShippedSandbox['ruleChain'] }
      : {}),
    ...(manifest.restConnector ? { restConfig: readJson(dir, manifest.restConnector.config) } : {}),
  };
}

/** Every shipped sandbox, in the catalogue's order (ThingsBoard 101 first, then by title). */
export function readShippedCatalogue(root: URL = SANDBOXES_DIR): ShippedSandbox[] {
  const ids = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const all = ids.map((id) => readShippedSandbox(id, root));
  const rank = (s: ShippedSandbox) => (s.manifest.id === 'thingsboard-101' ? 0 : 1);
  return all.sort((a, b) => rank(a) - rank(b) || a.manifest.title.localeCompare(b.manifest.title));
}

export interface ShippedSandboxDeps {
  services: Services;
  ruleChains: RuleChainService;
  simulations: SimulationManager;
  edgeSimulators: EdgeSimulatorManager;
  restConnectors?: RestConnectorManager;
  /** adds a push to edge node after Save Timeseries in the root chain unless there is one; true if added */
  ensurePushToEdge: (actor: Principal) => Promise<boolean>;
}

interface Progress {
  done: number;
  total: number;
  step: string | null;
  error: string | null;
}

export class ShippedSandboxes {
  private readonly deps: ShippedSandboxDeps;
  private loaded: ShippedSandbox[] | undefined;
  private readonly progress = new Map<string, Progress>();
  private readonly running = new Map<string, Promise<LoadShippedSandboxResult>>();

  constructor(deps: ShippedSandboxDeps, catalogue?: ShippedSandbox[]) {
    this.deps = deps;
    this.loaded = catalogue;
  }

  /** read on first use: a few dozen JSON files that the start does not need */
  private get catalogue(): ShippedSandbox[] {
    return (this.loaded ??= readShippedCatalogue());
  }

  list(): { firstRun: boolean; data: ShippedSandboxInfo[] } {
    return {
      firstRun: this.deps.services.devices.count() === 0,
      data: this.catalogue.map((s) => ({
        id: s.manifest.id,
        title: s.manifest.title,
        description: s.manifest.description,
        teaches: s.manifest.teaches,
        devices: s.scenario.gateways.reduce((n, g) => n + deviceNames(g).length, 0),
        tour: s.manifest.tour,
        status: this.status(s),
      })),
    };
  }

  /** Loads a sandbox (or joins its load in progress). */
  load(id: string, actor: Principal): Promise<LoadShippedSandboxResult> {
    requireTenantAdmin(actor);
    const sandbox = this.catalogue.find((s) => s.manifest.id === id);
    if (!sandbox) throw notFound(`Shipped sandbox [${id}] is not found`);
    let running = this.running.get(id);
    if (!running) {
      running = this.run(sandbox, actor).finally(() => this.running.delete(id));
      this.running.set(id, running);
    }
    return running;
  }

  private status(s: ShippedSandbox, finished = false): ShippedSandboxStatus {
    const { services, simulations } = this.deps;
    const p = this.progress.get(s.manifest.id);
    const dashboardId = services.dashboards.findByTitle(s.dashboard.title)?.id ?? null;
    const simulationId = simulations.list().find((x) => x.name === s.scenario.name)?.id ?? null;
    const tourDevice = s.manifest.tourDevice;
    const deviceId = tourDevice ? (services.devices.findRowByName(tourDevice)?.id ?? null) : null;
    const loading = !finished && this.running.has(s.manifest.id);
    const state = loading
      ? 'LOADING'
      : p?.error
        ? 'FAILED'
        : dashboardId && simulationId
          ? 'LOADED'
          : 'NOT_LOADED';
    return {
      state,
      done: p?.done ?? 0,
      total: p?.total ?? 0,
      step: loading ? (p?.step ?? null) : null,
      error: p?.error ?? null,
      dashboardId,
      simulationId,
      deviceId,
    };
  }

  private async run(s: ShippedSandbox, actor: Principal): Promise<LoadShippedSandboxResult> {
    const { services, ruleChains, simulations } = this.deps;
    const { manifest, scenario } = s;
    const created: CreatedEntity[] = [];
    const existing: CreatedEntity[] = [];
    const note = (made: boolean, type: string, name: string) =>
      (made ? created : existing).push({ type, name });
    const steps: [string, () => Promise<void>][] = [];
    const step = (label: string, fn: () => Promise<void>) => steps.push([label, fn]);

    // first: the setup would create a shipped scenario's dashboard itself
    step('Dashboard', async () => {
      const there = services.dashboards.findByTitle(s.dashboard.title);
      if (!there) await services.dashboards.save(s.dashboard, actor);
      note(!there, 'DASHBOARD', s.dashboard.title);
    });
    // applySetup creates the devices an asset Contains: what was there is noted before it runs
    const hadDevice = new Map<string, boolean>();
    step('Device profiles, assets and alarm rules', async () => {
      for (const g of scenario.gateways)
        for (const name of deviceNames(g)) hadDevice.set(name, !!services.devices.findRowByName(name));
      const profiles = scenario.setup?.deviceProfiles ?? [];
      const assets = scenario.setup?.assets ?? [];
      const before = {
        profiles: profiles.map((p) => !!services.profiles.findRowByName(p.name)),
        assets: assets.map((a) => findAsset(services, a.name, actor) !== null),
      };
      await applySetup(services, scenario, actor);
      profiles.forEach((p, i) => note(!before.profiles[i], 'DEVICE_PROFILE', p.name));
      assets.forEach((a, i) => note(!before.assets[i], 'ASSET', a.name));
    });
    step('Devices', async () => {
      for (const g of scenario.gateways)
        for (const name of deviceNames(g)) {
          const there = services.devices.findRowByName(name);
          if (!there)
            await services.devices.save({ name, ...(g.deviceType ? { type: g.deviceType } : {}) }, actor);
          note(!hadDevice.get(name), 'DEVICE', name);
        }
    });
    const chain = s.ruleChain;
    if (chain)
      step('Rule chain', async () => {
        const there = ruleChains.rows().find((r) => r.name === chain.name);
        if (!there) {
          const saved = await ruleChains.save({ name: chain.name, type: 'CORE', debugMode: false }, actor);
          await ruleChains.saveMetadata(saved.id.id, chain.metadata, actor);
        }
        note(!there, 'RULE_CHAIN', chain.name);
      });
    for (const a of manifest.attributes ?? [])
      step(`Attributes of ${a.entityName}`, async () => {
        const id =
          a.entityType === 'ASSET'
            ? findAsset(services, a.entityName, actor)
            : (services.devices.findRowByName(a.entityName)?.id ?? null);
        if (!id) throw new Error(`${a.entityType} '${a.entityName}' is not there to get its attributes`);
        await services.telemetry.saveAttributes(id, a.scope, a.values, a.entityType);
      });
    const connector = manifest.restConnector;
    if (connector)
      step('REST connector', async () => {
        const manager = this.deps.restConnectors;
        if (!manager) throw new Error('REST connectors are not available in this instance');
        const found = (await manager.list()).find((c) => c.name === connector.name);
        const there = found ?? (await manager.create({ name: connector.name, config: s.restConfig }));
        note(!found, 'REST_CONNECTOR', connector.name);
        if (there.state !== 'running' && there.state !== 'starting') await manager.start(there.id);
      });
    const edge = manifest.edge;
    if (edge)
      step('Edge', async () => {
        note(await this.deps.ensurePushToEdge(actor), 'RULE_NODE', 'Push to edge (root rule chain)');
        const found = services.edges
          .page({ pageSize: 1000, page: 0, textSearch: edge.name }, actor)
          .data.find((e) => e.name === edge.name);
        const saved = found ?? (await services.edges.save({ name: edge.name, type: 'factory' }, actor));
        note(!found, 'EDGE', edge.name);
        for (const g of scenario.gateways)
          for (const name of deviceNames(g)) {
            const row = services.devices.findRowByName(name);
            if (row) await services.edges.assign(saved.id.id, 'DEVICE', row.id, actor);
          }
        if (!found && saved.secret)
          this.deps.edgeSimulators.start({
            edgeId: saved.id.id,
            secret: saved.secret,
            ratePerSec: 20,
            batchSize: 20,
          });
      });
    step('Simulation', async () => {
      const there = simulations.list().find((x) => x.name === scenario.name);
      const simulation = there ?? (await simulations.create(scenario));
      note(!there, 'SIMULATION', scenario.name);
      const state = simulations.get(simulation.id).state;
      if (state !== 'running' && state !== 'starting') await simulations.start(simulation.id);
    });

    const progress: Progress = { done: 0, total: steps.length, step: null, error: null };
    this.progress.set(manifest.id, progress);
    try {
      for (const [label, fn] of steps) {
        progress.step = label;
        await fn();
        progress.done++;
      }
    } catch (err) {
      progress.error = `${progress.step}: ${(err as Error).message}`;
      if (err instanceof PlatformError) throw new PlatformError(err.status, err.errorCode, progress.error);
      throw err;
    } finally {
      progress.step = null;
    }
    return { id: manifest.id, created, existing, status: this.status(s, true) };
  }
}
