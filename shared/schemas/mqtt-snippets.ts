import { Type, type Static } from 'typebox';

/** Bounds of the MQTT page's saved payload snippets (kept by the server, carried by sandboxes). */
export const SNIPPET_LIMITS = {
  count: 500,
  name: 200,
  deviceType: 255,
  topic: 1024,
  payload: 65536,
} as const;

export const MqttSnippet = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: SNIPPET_LIMITS.name }),
    /** '' = for every device type */
    deviceType: Type.String({ maxLength: SNIPPET_LIMITS.deviceType }),
    topic: Type.String({ maxLength: SNIPPET_LIMITS.topic }),
    payload: Type.String({ maxLength: SNIPPET_LIMITS.payload }),
    qos: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]),
    retain: Type.Boolean(),
    csv: Type.Optional(Type.String({ maxLength: SNIPPET_LIMITS.payload })),
  },
  { additionalProperties: false },
);
export type MqttSnippet = Static<typeof MqttSnippet>;

export const MqttSnippetList = Type.Array(MqttSnippet, { maxItems: SNIPPET_LIMITS.count });
