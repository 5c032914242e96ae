import type { MsgType } from '../../../shared/rule-engine.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import type { NodeContext, RuleEnv } from '../rule-node.ts';
import type { UserCodeGuard } from '../user-code-guard.ts';
import { ScriptCompileError } from './script-compile-error.ts';
import { compileProgram, type ScriptLang } from './script-program.ts';
import {
  ScriptError,
  sharedScriptSandbox,
  type SandboxScript,
  type ScriptSandbox,
} from './script-sandbox.ts';

export const DEFAULT_ARG_NAMES = ['msg', 'metadata', 'msgType'] as const;

/** The script fields every script node's configuration has (TbJsFilterNodeConfiguration and the others). */
export interface ScriptConfig {
  scriptLang?: unknown;
  jsScript?: unknown;
  tbelScript?: unknown;
  [field: string]: unknown;
}

/** Where a node keeps its JavaScript and its TBEL (the alarm nodes: alarmDetailsBuildJs / alarmDetailsBuildTbel). */
export interface ScriptFields {
  js: string;
  tbel: string;
}

export const SCRIPT_FIELDS: ScriptFields = { js: 'jsScript', tbel: 'tbelScript' };

/** ThingsBoard runs JavaScript when scriptLang is absent (configurations from before TBEL). */
export function scriptLangOf(config: ScriptConfig): ScriptLang {
  return config.scriptLang === 'TBEL' ? 'TBEL' : 'JS';
}

function scriptField(config: ScriptConfig, fields: ScriptFields): string {
  return scriptLangOf(config) === 'TBEL' ? fields.tbel : fields.js;
}

/**
 * The save-time check of a script node: null, or a message naming the field, the line and the construct
 * (the engine prefixes the node), e.g. `'tbelScript' line 3: unknown function 'foo' (at 'foo')`.
 */
export function checkScriptConfig(
  config: ScriptConfig,
  argNames: readonly string[] = DEFAULT_ARG_NAMES,
  fields: ScriptFields = SCRIPT_FIELDS,
): string | null {
  if (config.scriptLang !== undefined && config.scriptLang !== 'JS' && config.scriptLang !== 'TBEL')
    return "'scriptLang' must be 'JS' or 'TBEL'";
  const field = scriptField(config, fields);
  const source = config[field];
  if (typeof source !== 'string' || source.trim() === '') return `'${field}' must be a non-empty script`;
  try {
    compileProgram(scriptLangOf(config), source, argNames);
    return null;
  } catch (err) {
    if (err instanceof ScriptCompileError) return `'${field}' ${err.message}`;
    throw err;
  }
}

/** What a script returned, named as ThingsBoard names it in "Wrong result type: ..." errors. */
function typeName(lang: ScriptLang, v: unknown): string {
  if (lang === 'JS') {
    if (v === null || v === undefined) return 'NULL';
    if (Array.isArray(v)) return 'ARRAY';
    return (
      ({ boolean: 'BOOLEAN', number: 'NUMBER', string: 'STRING' } as Record<string, string>)[typeof v] ??
      'OBJECT'
    );
  }
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'ExecutionArrayList';
  if (typeof v === 'number') return Number.isInteger(v) ? 'Integer' : 'Double';
  return ({ boolean: 'Boolean', string: 'String' } as Record<string, string>)[typeof v] ?? 'ExecutionHashMap';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Metadata values are strings; nulls are dropped, objects become JSON. */
function toMetadata(v: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (value === null || value === undefined) continue;
    out[k] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** A message built from a script's {msg, metadata, msgType}; what is missing is taken from `base`. */
function unbind(result: Record<string, unknown>, base: TbMsg): TbMsg {
  const metadata = isObject(result.metadata) ? toMetadata(result.metadata) : { ...base.metadata };
  const type = result.msgType === undefined || result.msgType === null ? '' : String(result.msgType);
  return {
    ...base,
    data: 'msg' in result ? result.msg : base.data,
    metadata,
    type: (type || base.type) as MsgType,
  };
}

/** The node a script belongs to, and the guard that marks its first run (user-code-guard.ts). */
export interface ScriptOwner {
  nodeId: string;
  name: string;
  guard: UserCodeGuard;
}

/** The owner of a node's script, when the engine runs with a guard. */
export function scriptOwner(env: RuleEnv, node: NodeContext | undefined): ScriptOwner | undefined {
  return env.userCode && node ? { nodeId: node.id, name: node.name, guard: env.userCode } : undefined;
}

export interface RuleScriptOptions {
  argNames?: readonly string[];
  fields?: ScriptFields;
  sandbox?: ScriptSandbox;
  owner?: ScriptOwner;
}

/**
 * A rule node's script, compiled once and run in the sandbox for each message: the conversions of
 * ThingsBoard's RuleNodeJsScriptEngine / RuleNodeTbelScriptEngine (filter, switch, update, generate,
 * toString, json). A script that does not compile still makes a node: each message then fails with the
 * compile error, as ThingsBoard fails the node.
 */
export class RuleScript {
  readonly lang: ScriptLang;
  private readonly sandbox: ScriptSandbox;
  private handle: SandboxScript | null = null;
  private readonly compileError: string | null = null;
  private readonly owner: ScriptOwner | undefined;
  /** suspended before it ran: the process stopped while it ran last time */
  private readonly suspendedAtStart: string | null;

  constructor(
    lang: ScriptLang,
    source: string,
    argNames: readonly string[] = DEFAULT_ARG_NAMES,
    sandbox: ScriptSandbox = sharedScriptSandbox(),
    owner?: ScriptOwner,
  ) {
    this.lang = lang;
    this.sandbox = sandbox;
    this.owner = owner;
    this.suspendedAtStart = owner ? owner.guard.suspended(owner.nodeId) : null;
    try {
      this.handle = sandbox.load(lang, compileProgram(lang, source, argNames));
    } catch (err) {
      if (!(err instanceof ScriptCompileError)) throw err;
      this.compileError = `Failed to compile script: ${err.message}`;
    }
  }

  static fromConfig(config: ScriptConfig, options: RuleScriptOptions = {}): RuleScript {
    const lang = scriptLangOf(config);
    const source = config[scriptField(config, options.fields ?? SCRIPT_FIELDS)];
    return new RuleScript(
      lang,
      typeof source === 'string' ? source : '',
      options.argNames,
      options.sandbox,
      options.owner,
    );
  }

  /** Why the script does not run (suspended), or null. */
  problem(): string | null {
    return this.suspendedAtStart ?? (this.handle ? this.sandbox.suspension(this.handle) : null);
  }

  private run(msg: TbMsg): Promise<unknown> {
    if (this.suspendedAtStart) return Promise.reject(new ScriptError('suspended', this.suspendedAtStart));
    if (!this.handle)
      return Promise.reject(new ScriptError('compile', this.compileError ?? 'Script released'));
    const owner = this.owner;
    const first = owner?.guard.enter(owner.nodeId, owner.name) ?? false;
    const done = this.sandbox.invoke(this.handle, msg.data ?? {}, msg.metadata, msg.type);
    return first ? done.finally(() => owner!.guard.leave(owner!.nodeId)) : done;
  }

  private wrongType(v: unknown): ScriptError {
    return new ScriptError('runtime', `Wrong result type: ${typeName(this.lang, v)}`);
  }

  async filter(msg: TbMsg): Promise<boolean> {
    const r = await this.run(msg);
    if (typeof r === 'boolean') return r;
    throw this.wrongType(r);
  }

  /** Relation names, without repeats. */
  async switch(msg: TbMsg): Promise<string[]> {
    const r = await this.run(msg);
    if (typeof r === 'string') return [r];
    if (Array.isArray(r)) {
      for (const v of r) if (typeof v !== 'string') throw this.wrongType(v);
      return [...new Set(r as string[])];
    }
    throw this.wrongType(r);
  }

  /** The transformed message(s): {msg, metadata, msgType} or an array of them. */
  async update(msg: TbMsg): Promise<TbMsg[]> {
    const r = await this.run(msg);
    if (isObject(r)) return [unbind(r, msg)];
    if (Array.isArray(r)) {
      return r.map((item) => {
        if (isObject(item)) return unbind(item, msg);
        if (this.lang === 'TBEL') throw this.wrongType(item);
        return { ...msg };
      });
    }
    throw this.wrongType(r);
  }

  /** The generator's next message, built on the previous one. */
  async generate(prev: TbMsg): Promise<TbMsg> {
    const r = await this.run(prev);
    if (isObject(r)) return unbind(r, prev);
    throw this.wrongType(r);
  }

  async toLogString(msg: TbMsg): Promise<string> {
    const r = await this.run(msg);
    if (typeof r === 'string') return r;
    if (this.lang === 'TBEL') return JSON.stringify(r ?? null);
    throw this.wrongType(r);
  }

  json(msg: TbMsg): Promise<unknown> {
    return this.run(msg);
  }

  destroy(): void {
    if (this.handle) this.sandbox.release(this.handle);
    this.handle = null;
  }
}
