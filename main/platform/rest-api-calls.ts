import { ErrorCode, PlatformError } from './errors.ts';
import { RPC_SERVICE_ID } from './rpc.ts';

/** Calls waiting at once; more are refused (each holds an HTTP request open). */
export const MAX_WAITING_REST_API_CALLS = 10_000;

interface Waiting {
  resolve: (reply: RestApiCallReply | null) => void;
  timer: NodeJS.Timeout;
}

export interface RestApiCallReply {
  data: unknown;
}

/**
 * REST API calls to the rule engine (ThingsBoard's RuleEngineCallService): a call waits, by its request
 * UUID, for the rest call reply node to answer it, or for its timeout.
 */
export class RestApiCallService {
  readonly serviceId = RPC_SERVICE_ID;
  private readonly waiting = new Map<string, Waiting>();

  /** Resolves with the reply, or with null when none comes within timeoutMs. */
  wait(requestId: string, timeoutMs: number): Promise<RestApiCallReply | null> {
    if (this.waiting.size >= MAX_WAITING_REST_API_CALLS)
      throw new PlatformError(
        429,
        ErrorCode.TOO_MANY_REQUESTS,
        `Too many REST API calls waiting for the rule engine (${MAX_WAITING_REST_API_CALLS})`,
      );
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(requestId);
        resolve(null);
      }, timeoutMs);
      this.waiting.set(requestId, { resolve, timer });
    });
  }

  /** The rest call reply node's answer; false when no call of this server waits for it (timed out). */
  reply(serviceId: string, requestId: string, data: unknown): boolean {
    if (serviceId !== this.serviceId) return false;
    const call = this.waiting.get(requestId);
    if (!call) return false;
    this.waiting.delete(requestId);
    clearTimeout(call.timer);
    call.resolve({ data });
    return true;
  }

  waitingCount(): number {
    return this.waiting.size;
  }

  /** Answers every waiting call with its timeout (shutdown). */
  stop(): void {
    for (const call of this.waiting.values()) {
      clearTimeout(call.timer);
      call.resolve(null);
    }
    this.waiting.clear();
  }
}
