import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.rpcCallReply]!;

const key = (value: unknown, fallback: string) =>
  typeof value === 'string' && value !== '' ? value : fallback;

/**
 * Answers a device's own RPC request with the message data: sent on the session (named by the metadata's
 * serviceId, sessionId and requestId, as the transport put them) that asked.
 */
export const rpcCallReplyNode: NodeDefinition = {
  type: NODE_TYPES.rpcCallReply,
  label: 'RPC Call Reply',
  componentType: 'ACTION',
  description: 'Sends reply to RPC call from device',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    serviceIdMetaDataAttribute: 'serviceId',
    sessionIdMetaDataAttribute: 'sessionId',
    requestIdMetaDataAttribute: 'requestId',
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const serviceKey = key(config.serviceIdMetaDataAttribute, 'serviceId');
    const sessionKey = key(config.sessionIdMetaDataAttribute, 'sessionId');
    const requestKey = key(config.requestIdMetaDataAttribute, 'requestId');
    return {
      process(msg) {
        const serviceId = msg.metadata[serviceKey];
        const sessionId = msg.metadata[sessionKey];
        const requestId = msg.metadata[requestKey];
        if (msg.originator.entityType !== 'DEVICE')
          return failure(msg, new Error('Message originator is not a device entity!'));
        if (!requestId) return failure(msg, new Error('Request id is not present in the metadata!'));
        if (!serviceId) return failure(msg, new Error('Service id is not present in the metadata!'));
        if (!sessionId) return failure(msg, new Error('Session id is not present in the metadata!'));
        if (msg.data === undefined || msg.data === null || msg.data === '')
          return failure(msg, new Error('Request body is empty!'));
        const id = Number(requestId);
        if (!Number.isInteger(id))
          return failure(msg, new Error(`Request id '${requestId}' is not a number`));
        if (!env.services.rpc.replyToDevice(serviceId, sessionId, id, msg.data))
          return failure(
            msg,
            new Error(`The device session ${sessionId} is closed or not subscribed to RPC responses`),
          );
        return success(msg);
      },
    };
  },
};
