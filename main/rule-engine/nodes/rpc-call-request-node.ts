import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.rpcCallRequest]!;

/** Hands RPC_CALL_FROM_SERVER_TO_DEVICE messages to the device's transport. */
export const rpcCallRequestNode: NodeDefinition = {
  type: NODE_TYPES.rpcCallRequest,
  label: 'RPC Call Request',
  componentType: 'ACTION',
  description: 'Sends RPC call to device',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { timeoutInSeconds: 60 },
  configurationSchema: schema,
  validate: (c) =>
    c.timeoutInSeconds !== undefined && (typeof c.timeoutInSeconds !== 'number' || c.timeoutInSeconds <= 0)
      ? "'timeoutInSeconds' must be a positive number"
      : schemaValidator(schema)(c),
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
