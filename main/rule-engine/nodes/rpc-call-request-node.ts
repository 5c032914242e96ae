import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

/** Hands RPC_CALL_FROM_SERVER_TO_DEVICE messages to the device's transport. */
export const rpcCallRequestNode: NodeDefinition = {
  type: NODE_TYPES.rpcCallRequest,
  label: 'RPC Call Request',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { timeoutInSeconds: 60 },
  validate: (c) =>
    c.timeoutInSeconds !== undefined && (typeof c.timeoutInSeconds !== 'number' || c.timeoutInSeconds <= 0)
      ? "'timeoutInSeconds' must be a positive number"
      : null,
  create: (_config, env) => ({
    process(msg) {
      if (msg.type !== 'RPC_CALL_FROM_SERVER_TO_DEVICE' || msg.originator.entityType !== 'DEVICE') {
        return failure(
          msg,
          new Error('RPC Call Request takes RPC_CALL_FROM_SERVER_TO_DEVICE messages of devices'),
        );
      }
      const requestId = Number(msg.metadata.requestId);
      if (!Number.isInteger(requestId)) return failure(msg, new Error('metadata.requestId is missing'));
      env.services.rpc.dispatch(msg.originator.id, requestId);
      return success(msg);
    },
  }),
};
