/**
 * Rule chain tests (`sandboard test-chain`, POST /api/sandboard/ruleChain/{id}/test): the CASES document
 * (input messages and what the chain should do with them) and the results. Documented in
 * docs/rule-chain-tests.md.
 */
import { Type, type Static } from 'typebox';
import { MessageTraceEvent } from '../rule-engine.ts';
import { isRecord, joinPath, type JsonPathIssue, schemaIssues, type SchemaNode } from './json-path-issues.ts';

/** The format version this Sandboard writes and reads; a file of a newer one is refused. */
export const CHAIN_TESTS_VERSION = 1;
export const CHAIN_TESTS_MAX_CASES = 1000;
/** How long one case may run when the file does not say. */
export const CHAIN_TEST_DEFAULT_TIMEOUT_MS = 10_000;

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const TestOriginator = Type.Object(
  {
    name: Name,
    type: Type.Optional(
      Type.Union([Type.Literal('DEVICE'), Type.Literal('ASSET')], {
        description: 'DEVICE (default) or ASSET; created in the scratch platform if missing',
      }),
    ),
    profile: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export type TestOriginator = Static<typeof TestOriginator>;

export const TestInput = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "the message type, e.g. POST_TELEMETRY_REQUEST (ThingsBoard's names)",
    }),
    originator: Type.Optional(TestOriginator),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    data: Type.Unknown({ description: 'the message data (any JSON)' }),
  },
  { additionalProperties: false },
);
export type TestInput = Static<typeof TestInput>;

const Tolerance = Type.Union(
  [Type.Number({ minimum: 0 }), Type.Record(Type.String(), Type.Number({ minimum: 0 }))],
  {
    description: 'numbers within this of the expected value match: one for all, or by path',
  },
);
const Ignore = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 1000,
  description: 'data paths not compared (ts, readings[0].raw)',
});

export const MessageExpectation = Type.Object(
  {
    node: Name,
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    data: Type.Optional(
      Type.Unknown({ description: 'equal to the data of a message that reached the node' }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'these keys (others are not compared)' }),
    ),
    ignore: Type.Optional(Ignore),
    tolerance: Type.Optional(Tolerance),
    count: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000, description: 'exactly this many messages reached it' }),
    ),
  },
  { additionalProperties: false },
);
export type MessageExpectation = Static<typeof MessageExpectation>;

const AlarmExpectation = Type.Object(
  { type: Name, severity: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })) },
  { additionalProperties: false },
);

const Values = Type.Record(Type.String(), Type.Unknown());

export const CaseExpectation = Type.Object(
  {
    relations: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 100 })]), {
        description: 'node name -> the relation(s) it emitted, all of them ([]: it emitted nothing)',
      }),
    ),
    messages: Type.Optional(Type.Array(MessageExpectation, { maxItems: 1000 })),
    alarms: Type.Optional(
      Type.Object(
        {
          created: Type.Optional(Type.Array(AlarmExpectation, { maxItems: 100 })),
          cleared: Type.Optional(Type.Array(AlarmExpectation, { maxItems: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
    latest: Type.Optional(Values),
    attributes: Type.Optional(
      Type.Object(
        {
          SERVER_SCOPE: Type.Optional(Values),
          SHARED_SCOPE: Type.Optional(Values),
          CLIENT_SCOPE: Type.Optional(Values),
        },
        { additionalProperties: false },
      ),
    ),
    tolerance: Type.Optional(Tolerance),
  },
  { additionalProperties: false },
);
export type CaseExpectation = Static<typeof CaseExpectation>;

export const TestCase = Type.Object(
  {
    name: Name,
    input: TestInput,
    expect: CaseExpectation,
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 300_000 })),
  },
  { additionalProperties: false },
);
export type TestCase = Static<typeof TestCase>;

export const ChainTests = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: `the format's version: ${CHAIN_TESTS_VERSION}` }),
    name: Type.Optional(Name),
    originator: Type.Optional(TestOriginator),
    cases: Type.Array(TestCase, { minItems: 1, maxItems: CHAIN_TESTS_MAX_CASES }),
  },
  { additionalProperties: false },
);
export type ChainTests = Static<typeof ChainTests>;

/** Every problem of a would-be CASES document, each naming its JSON path; empty when it is valid. */
export function chainTestsIssues(value: unknown): JsonPathIssue[] {
  if (isRecord(value) && typeof value.version === 'number' && value.version > CHAIN_TESTS_VERSION)
    return [
      {
        path: 'version',
        message: `is ${value.version}, written for a newer Sandboard (this one reads version ${CHAIN_TESTS_VERSION})`,
      },
    ];
  const issues = schemaIssues(ChainTests as unknown as SchemaNode, value, '');
  if (issues.length || !isRecord(value)) return issues;
  const names = new Set<string>();
  (value as ChainTests).cases.forEach((c, i) => {
    if (names.has(c.name))
      issues.push({ path: joinPath(joinPath('cases', i), 'name'), message: 'is used twice' });
    names.add(c.name);
  });
  return issues;
}

/** What of a rule chain export file (ThingsBoard's {"ruleChain", "metadata"}) a test needs, to name paths. */
const ChainFileShape = Type.Object({
  ruleChain: Type.Object({
    name: Name,
    type: Type.Optional(Type.Union([Type.Literal('CORE'), Type.Null()])),
  }),
  metadata: Type.Object({
    firstNodeIndex: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    nodes: Type.Array(
      Type.Object({
        type: Type.String({ minLength: 1 }),
        name: Type.String(),
        configuration: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      }),
    ),
    connections: Type.Optional(
      Type.Union([
        Type.Array(
          Type.Object({
            fromIndex: Type.Integer({ minimum: 0 }),
            toIndex: Type.Integer({ minimum: 0 }),
            type: Type.String({ minLength: 1 }),
          }),
        ),
        Type.Null(),
      ]),
    ),
  }),
});
type ChainFileShape = Static<typeof ChainFileShape>;

/** The problems of a would-be rule chain export file for a test, each naming its JSON path. */
export function chainFileIssues(value: unknown): JsonPathIssue[] {
  const issues = schemaIssues(ChainFileShape as unknown as SchemaNode, value, '');
  if (issues.length) return issues;
  const md = (value as ChainFileShape).metadata;
  const count = md.nodes.length;
  if (md.firstNodeIndex !== null && md.firstNodeIndex !== undefined && md.firstNodeIndex >= count)
    issues.push({
      path: 'metadata.firstNodeIndex',
      message: `is ${md.firstNodeIndex}, the chain has ${count} nodes`,
    });
  (md.connections ?? []).forEach((c, i) => {
    for (const key of ['fromIndex', 'toIndex'] as const)
      if (c[key] >= count)
        issues.push({
          path: joinPath(joinPath('metadata.connections', i), key),
          message: `is ${c[key]}, the chain has ${count} nodes`,
        });
  });
  return issues;
}

// ---------------------------------------------------------------------------------------------------------
// Results.

export const CaseResult = Type.Object({
  name: Type.String(),
  passed: Type.Boolean(),
  failures: Type.Array(Type.String(), { description: 'each mismatch, in words' }),
  durationMs: Type.Number(),
  relations: Type.Record(Type.String(), Type.Array(Type.String()), {
    description: 'node name -> the relations it emitted',
  }),
  trace: Type.Array(MessageTraceEvent, {
    description: "the input message's way (as the message trace shows it; data cut short)",
  }),
});
export type CaseResult = Static<typeof CaseResult>;

export const ChainTestReport = Type.Object({
  chain: Type.String({ description: "the chain's name" }),
  ruleChainId: Type.String(),
  passed: Type.Integer(),
  failed: Type.Integer(),
  durationMs: Type.Number(),
  cases: Type.Array(CaseResult),
});
export type ChainTestReport = Static<typeof ChainTestReport>;
