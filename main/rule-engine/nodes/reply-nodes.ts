import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

/** A metadata key the configuration names, ThingsBoard's default when it names none. */
const key = (value: unknown, fallback: string) =>
  typeof value === 'string' && value !== '' ? value : fallback;

const rpcSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.rpcCallReply]!;
const restSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.restCallReply]!;

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
  configurationSchema: rpcSchema,
  validate: schemaValidator(rpcSchema),
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

/**
 * Answers a REST API call to the rule engine (POST /api/rule-engine/...) with the message data: the call
 * named by the metadata's serviceId and requestUUID, as the REST API put them.
 */
export const restCallReplyNode: NodeDefinition = {
  type: NODE_TYPES.restCallReply,
  label: 'REST Call Reply',
  componentType: 'ACTION',
  description: 'Sends reply to REST API call to rule engine',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    serviceIdMetaDataAttribute: 'serviceId',
    requestIdMetaDataAttribute: 'requestUUID',
  },
  configurationSchema: restSchema,
  validate: schemaValidator(restSchema),
  create: (config, env) => {
    const serviceKey = key(config.serviceIdMetaDataAttribute, 'serviceId');
    const requestKey = key(config.requestIdMetaDataAttribute, 'requestUUID');
    return {
      process(msg) {
        const serviceId = msg.metadata[serviceKey];
        const requestId = msg.metadata[requestKey];
        if (!requestId) return failure(msg, new Error('Request id is not present in the metadata!'));
        if (!serviceId) return failure(msg, new Error('Service id is not present in the metadata!'));
        if (msg.data === undefined || msg.data === null || msg.data === '')
          return failure(msg, new Error('Request body is empty!'));
        // ThingsBoard tells Success even when the call has timed out meanwhile: the reply is simply dropped.
        env.services.restApiCalls.reply(serviceId, requestId, msg.data);
        return success(msg);
      },
    };
  },
};
