import type { TSchema } from 'typebox';
import type { ComponentType, RuleChainType } from '../../shared/rule-engine.ts';
import type { EdgeQueue } from '../edge/edge-queue.ts';
import type { Services } from '../platform/services.ts';
import type { Originator, TbMsg } from '../platform/tb-msg.ts';
import type { UserCodeGuard } from './user-code-guard.ts';

export interface NodeOutput {
  relation: string;
  msg: TbMsg;
}

/** What the engine offers a node while it handles one message. */
export interface MsgRun {
  /**
   * Runs the message through another chain (ThingsBoard's ctx.input): resolves with what that chain's output
   * nodes gave, each with the output node's name as the relation.
   */
  input(ruleChainId: string, msg: TbMsg): Promise<NodeOutput[]>;
}

/** A node's behaviour: a message in, zero or more (relation, message) pairs out. */
export interface RuleNode {
  process(msg: TbMsg, run?: MsgRun): Promise<NodeOutput[]> | NodeOutput[];
  /** For nodes that make messages themselves (the generator): called once the chain runs. */
  start?(emit: (outputs: NodeOutput[]) => void): void;
  /** Frees what the node holds (timers, connections, its script's sandbox context) when its chain is replaced. */
  destroy?(): void | Promise<void>;
  /** Why the node stopped running after it was built (its script suspended), or null while it runs. */
  problem?(): string | null;
}

/** What nodes may use: the domain services and the edge queue. */
export interface RuleEnv {
  services: Services;
  edgeQueue: EdgeQueue;
  log(line: string): void;
  /** marks nodes running user code, so that a crash while they run suspends them at the next start */
  userCode?: UserCodeGuard;
}

/** Where a node instance sits, and how it sends messages of its own (delays, periodic counts). */
export interface NodeContext {
  id: string;
  name: string;
  ruleChainId: string;
  /**
   * Sends a message out of this node on the given relation, apart from any message being processed
   * (ThingsBoard's enqueueForTellNext): the caller does not wait for it.
   */
  tellNext(msg: TbMsg, relation: string): void;
  /** A new message into the originator's chain (profile chain or root), as ThingsBoard's ctx.enqueue. */
  enqueue(msg: TbMsg): void;
  /** The default rule chain of the originator's device profile, if it names one. */
  defaultRuleChainOf(originator: Originator): string | undefined;
}

export interface NodeDefinition {
  /** ThingsBoard's node class, e.g. org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode. */
  type: string;
  /** What a person sees in the node palette. */
  label: string;
  /** The relations the node may emit. */
  relations: string[];
  defaultConfiguration: Record<string, unknown>;
  /** null when the configuration is valid, else a message naming the field. */
  validate(configuration: Record<string, unknown>): string | null;
  /** Builds the node; throwing makes a node that fails every message with that error (not initialized). */
  create(configuration: Record<string, unknown>, env: RuleEnv, node?: NodeContext): RuleNode;
  /** ThingsBoard's component type (palette group); ACTION when absent. */
  componentType?: ComponentType;
  description?: string;
  details?: string;
  /** JSON schema of the configuration, for editors. */
  configurationSchema?: TSchema;
  /** ThingsBoard's configuration version; older configurations are upgraded when saved or imported. */
  version?: number;
  /** Turns a configuration of an older version into the current one. */
  upgrade?(fromVersion: number, configuration: Record<string, unknown>): Record<string, unknown>;
  /** The user names the relations (rule chain node, device profile node). */
  customRelations?: boolean;
  /** The node is a rule chain node (forwards to another chain). */
  ruleChainNode?: boolean;
  /** false for nodes with no outgoing relations (output node). */
  outEnabled?: boolean;
  /** Chain types the node is offered for; both when absent. */
  ruleChainTypes?: RuleChainType[];
  /**
   * The node stores the message's data, which the sender's acknowledgement (MQTT PUBACK, HTTP answer)
   * promises: its Failure fails that acknowledgement. Any other node's Failure stays inside the rule engine,
   * as in ThingsBoard (debug events and the failure count show it; the device is not told).
   */
  storesMessageData?: boolean;
}

export const success = (msg: TbMsg): NodeOutput[] => [{ relation: 'Success', msg }];
export const failure = (msg: TbMsg, error: unknown): NodeOutput[] => [
  {
    relation: 'Failure',
    msg: { ...msg, metadata: { ...msg.metadata, error: errorText(error) } },
  },
];

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
