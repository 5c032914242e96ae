import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { asMetadataValue } from '../msg-patterns.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whole-key regular expressions, as Java's Pattern.matcher(key).matches(). */
function keyMatcher(patterns: unknown): (key: string) => boolean {
  const list = ((patterns as string[] | undefined) ?? []).map((p) => {
    try {
      return new RegExp(`^(?:${p})$`, 'u');
    } catch (err) {
      throw new Error(`Key pattern '${p}' is not a valid regular expression: ${(err as Error).message}`, {
        cause: err,
      });
    }
  });
  return (key) => list.some((re) => re.test(key));
}

/**
 * Versions 0 and 1 of the copy / rename / delete nodes said where to act with "fromMetadata" (true/false)
 * or, in version 1, with another key; version 2 uses the node's own key.
 */
function upgradeMsgSource(newKey: string, v1Key: string) {
  return (from: number, config: Record<string, unknown>): Record<string, unknown> => {
    if (from === 0 && 'fromMetadata' in config) {
      const { fromMetadata, ...rest } = config;
      return { ...rest, [newKey]: fromMetadata === true || fromMetadata === 'true' ? 'METADATA' : 'DATA' };
    }
    if (from === 1 && !(newKey in config) && v1Key in config) {
      const { [v1Key]: value, ...rest } = config;
      return { ...rest, [newKey]: value };
    }
    return config;
  };
}

const copySchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.copyKeys]!;
const renameSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.renameKeys]!;
const deleteSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.deleteKeys]!;

/** Copies matching keys from the data to the metadata or back. */
export const copyKeysNode: NodeDefinition = {
  type: NODE_TYPES.copyKeys,
  label: 'Copy Key-Value Pairs',
  componentType: 'TRANSFORMATION',
  description: 'Copies key-value pairs from message to message metadata or vice-versa.',
  relations: ['Success', 'Failure'],
  version: 2,
  upgrade: upgradeMsgSource('copyFrom', 'fromMetadata'),
  defaultConfiguration: { keys: [], copyFrom: 'DATA' },
  configurationSchema: copySchema,
  validate: schemaValidator(copySchema),
  create: (config) => {
    if (!config.copyFrom) throw new Error("CopyFrom can't be null! Allowed values: [DATA, METADATA]");
    const matches = keyMatcher(config.keys);
    return {
      process(msg) {
        if (!isObject(msg.data)) return success(msg);
        if (config.copyFrom === 'METADATA') {
          const data = { ...msg.data };
          let changed = false;
          for (const [k, v] of Object.entries(msg.metadata))
            if (matches(k)) {
              data[k] = v;
              changed = true;
            }
          return success(changed ? { ...msg, data } : msg);
        }
        const metadata = { ...msg.metadata };
        let changed = false;
        for (const [k, v] of Object.entries(msg.data))
          if (matches(k)) {
            metadata[k] = asMetadataValue(v);
            changed = true;
          }
        return success(changed ? { ...msg, metadata } : msg);
      },
    };
  },
};

/** Renames keys of the data or the metadata. */
export const renameKeysNode: NodeDefinition = {
  type: NODE_TYPES.renameKeys,
  label: 'Rename Keys',
  componentType: 'TRANSFORMATION',
  description: 'Renames message or message metadata keys.',
  relations: ['Success', 'Failure'],
  version: 2,
  upgrade: upgradeMsgSource('renameIn', 'fromMetadata'),
  defaultConfiguration: { renameKeysMapping: { temperatureCelsius: 'temperature' }, renameIn: 'DATA' },
  configurationSchema: renameSchema,
  validate: schemaValidator(renameSchema),
  create: (config) => {
    if (!config.renameIn) throw new Error("RenameIn can't be null! Allowed values: [DATA, METADATA]");
    const mapping = (config.renameKeysMapping ?? {}) as Record<string, string>;
    if (Object.keys(mapping).length === 0) throw new Error('At least one mapping entry should be specified!');
    const rename = <T>(source: Record<string, T>): Record<string, T> | null => {
      const out = { ...source };
      let changed = false;
      for (const [from, to] of Object.entries(mapping)) {
        if (!Object.hasOwn(out, from)) continue;
        const value = out[from]!;
        delete out[from];
        out[to] = value;
        changed = true;
      }
      return changed ? out : null;
    };
    return {
      process(msg) {
        if (config.renameIn === 'METADATA') {
          const metadata = rename(msg.metadata);
          return success(metadata ? { ...msg, metadata } : msg);
        }
        if (!isObject(msg.data)) return success(msg);
        const data = rename(msg.data);
        return success(data ? { ...msg, data } : msg);
      },
    };
  },
};

/** Deletes matching keys from the data or the metadata. */
export const deleteKeysNode: NodeDefinition = {
  type: NODE_TYPES.deleteKeys,
  label: 'Delete Key-Value Pairs',
  componentType: 'TRANSFORMATION',
  description: 'Deletes key-value pairs from message or message metadata.',
  relations: ['Success', 'Failure'],
  version: 2,
  upgrade: upgradeMsgSource('deleteFrom', 'dataToFetch'),
  defaultConfiguration: { keys: [], deleteFrom: 'DATA' },
  configurationSchema: deleteSchema,
  validate: schemaValidator(deleteSchema),
  create: (config) => {
    if (!config.deleteFrom) throw new Error("DeleteFrom can't be null! Allowed values: [DATA, METADATA]");
    const matches = keyMatcher(config.keys);
    const without = <T>(source: Record<string, T>): Record<string, T> | null => {
      const gone = Object.keys(source).filter(matches);
      if (gone.length === 0) return null;
      const out = { ...source };
      for (const k of gone) delete out[k];
      return out;
    };
    return {
      process(msg) {
        if (config.deleteFrom === 'METADATA') {
          const metadata = without(msg.metadata);
          return success(metadata ? { ...msg, metadata } : msg);
        }
        if (!isObject(msg.data)) return success(msg);
        const data = without(msg.data);
        return success(data ? { ...msg, data } : msg);
      },
    };
  },
};
