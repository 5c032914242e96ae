/**
 * A shipped sandbox: a ready-made set-up the app carries (shared/sandboxes/<id>/manifest.json and the
 * files it names beside it), loaded in one click from the "Start here" page. It names a scenario (its
 * simulation, whose setup makes profiles, alarm rules and assets), a ThingsBoard-format dashboard, and
 * optionally a rule chain, a REST connector, an edge and attributes to write; and a guided tour whose
 * steps point at the app's UI (data-tour attributes).
 */
import { Type, type Static } from 'typebox';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const File = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^(\\.\\./\\.\\./scenarios/)?[a-z0-9][a-z0-9.-]*\\.json$',
  description: 'a file beside the manifest, or a shipped scenario file (../../scenarios/x.json)',
});

export const TourStep = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$' }),
    title: Type.String({ minLength: 1, maxLength: 80 }),
    text: Type.String({ minLength: 1, maxLength: 600 }),
    /** the app path the step is on; ${dashboardId}, ${deviceId} and ${simulationId} expand */
    path: Type.String({ minLength: 1, maxLength: 255, pattern: '^/' }),
    /** a CSS selector of the element the step points at ([data-tour=...], [data-testid=...]); none or not found: a centred card */
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 160 })),
  },
  { additionalProperties: false },
);
export type TourStep = Static<typeof TourStep>;

export const SandboxAttributes = Type.Object(
  {
    entityType: Type.Union([Type.Literal('DEVICE'), Type.Literal('ASSET')]),
    entityName: Name,
    scope: Type.Union([Type.Literal('SERVER_SCOPE'), Type.Literal('SHARED_SCOPE')]),
    values: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);
export type SandboxAttributes = Static<typeof SandboxAttributes>;

export const ShippedSandboxManifest = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$' }),
    title: Type.String({ minLength: 1, maxLength: 80 }),
    description: Type.String({ minLength: 1, maxLength: 1000 }),
    teaches: Type.Array(Type.String({ minLength: 1, maxLength: 120 }), { minItems: 1, maxItems: 12 }),
    /** the simulation's scenario (shared/schemas/simulation.ts) */
    scenario: File,
    /** ThingsBoard's dashboard JSON */
    dashboard: File,
    /** { name, metadata: { firstNodeIndex, nodes, connections } }: a rule chain created when missing */
    ruleChain: Type.Optional(File),
    /** a REST connector (its rest.json), created when missing and started */
    restConnector: Type.Optional(Type.Object({ name: Name, config: File }, { additionalProperties: false })),
    /** an edge the scenario's devices are assigned to, with a simulated edge pulling its queue */
    edge: Type.Optional(Type.Object({ name: Name }, { additionalProperties: false })),
    attributes: Type.Optional(Type.Array(SandboxAttributes, { maxItems: 50 })),
    /** the device the tour opens (${deviceId}) */
    tourDevice: Type.Optional(Name),
    tour: Type.Array(TourStep, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
export type ShippedSandboxManifest = Static<typeof ShippedSandboxManifest>;

export const CreatedEntity = Type.Object({ type: Type.String(), name: Type.String() });
export type CreatedEntity = Static<typeof CreatedEntity>;

export const ShippedSandboxStatus = Type.Object({
  state: Type.Union([
    Type.Literal('NOT_LOADED'),
    Type.Literal('LOADING'),
    Type.Literal('LOADED'),
    Type.Literal('FAILED'),
  ]),
  /** steps done of total, while loading */
  done: Type.Integer(),
  total: Type.Integer(),
  step: Type.Union([Type.String(), Type.Null()], { description: 'what is being done now' }),
  error: Type.Union([Type.String(), Type.Null()]),
  dashboardId: Type.Union([Type.String(), Type.Null()]),
  simulationId: Type.Union([Type.String(), Type.Null()]),
  deviceId: Type.Union([Type.String(), Type.Null()], { description: "the tour's device" }),
});
export type ShippedSandboxStatus = Static<typeof ShippedSandboxStatus>;

export const ShippedSandboxInfo = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  teaches: Type.Array(Type.String()),
  devices: Type.Integer({ description: "the simulation's devices" }),
  tour: Type.Array(TourStep),
  status: ShippedSandboxStatus,
});
export type ShippedSandboxInfo = Static<typeof ShippedSandboxInfo>;

export const ShippedSandboxList = Type.Object({
  /** no device exists yet: the app shows "Start here" */
  firstRun: Type.Boolean(),
  data: Type.Array(ShippedSandboxInfo),
});
export type ShippedSandboxList = Static<typeof ShippedSandboxList>;

export const LoadShippedSandboxResult = Type.Object({
  id: Type.String(),
  created: Type.Array(CreatedEntity, { description: 'what this load created' }),
  existing: Type.Array(CreatedEntity, { description: 'what was there already and was kept' }),
  status: ShippedSandboxStatus,
});
export type LoadShippedSandboxResult = Static<typeof LoadShippedSandboxResult>;
