import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.restCallReply]!;

const key = (value: unknown, fallback: string) =>
  typeof value === 'string' && value !== '' ? value : fallback;

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
  configurationSchema: schema,
  validate: schemaValidator(schema),
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
