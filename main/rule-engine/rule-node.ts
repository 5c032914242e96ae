import type { EdgeQueue } from '../edge/edge-queue.ts';
import type { Services } from '../platform/services.ts';
import type { TbMsg } from '../platform/tb-msg.ts';

export interface NodeOutput {
  relation: string;
  msg: TbMsg;
}

/** A node's behaviour: a message in, zero or more (relation, message) pairs out. */
export interface RuleNode {
  process(msg: TbMsg): Promise<NodeOutput[]> | NodeOutput[];
  /** For nodes that make messages themselves (the generator): called once the chain runs. */
  start?(emit: (outputs: NodeOutput[]) => void): void;
  /** Frees what the node holds (timers, its script's sandbox context) when its chain is replaced. */
  destroy?(): void;
}

/** What nodes may use: the domain services and the edge queue. */
export interface RuleEnv {
  services: Services;
  edgeQueue: EdgeQueue;
  log(line: string): void;
}

export interface NodeDefinition {
  type: string;
  /** What a person sees in the node palette. */
  label: string;
  /** The relations the node may emit. */
  relations: string[];
  defaultConfiguration: Record<string, unknown>;
  /** null when the configuration is valid, else a message naming the field. */
  validate(configuration: Record<string, unknown>): string | null;
  create(configuration: Record<string, unknown>, env: RuleEnv): RuleNode;
}

export const success = (msg: TbMsg): NodeOutput[] => [{ relation: 'Success', msg }];
export const failure = (msg: TbMsg, error: unknown): NodeOutput[] => [
  {
    relation: 'Failure',
    msg: { ...msg, metadata: { ...msg.metadata, error: (error as Error).message ?? String(error) } },
  },
];
