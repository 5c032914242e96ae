import type { InspectedMessage } from '../../api/mqtt-api.ts';

/** The environment variable the copied snippets read the device's credentials from (never copied themselves). */
export const TOKEN_VARIABLE = 'SANDBOARD_TOKEN';

export type SnippetKind = 'mosquitto_pub' | 'mqtt.js' | 'paho';

/** POSIX shell single quoting: 'it'\''s'. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function payloadText(m: InspectedMessage): string {
  return m.payload.text ?? '';
}

function hostPort(mqttUrl: string): { host: string; port: number } {
  const url = new URL(mqttUrl.replace(/^mqtt:/, 'http:'));
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 1883) };
}

/**
 * A message as a command or program that publishes it again, as the same device: the access token comes
 * from $SANDBOARD_TOKEN (the inspector never shows credentials). Binary payloads go as hex-decoded files.
 */
export function snippet(kind: SnippetKind, m: InspectedMessage, mqttUrl: string): string {
  const { host, port } = hostPort(mqttUrl);
  const text = payloadText(m);
  const v5 = m.protocolVersion === 5;
  const qos = Math.min(m.qos, 2);
  if (kind === 'mosquitto_pub') {
    return [
      'mosquitto_pub',
      `-h ${host} -p ${port}`,
      v5 ? '-V mqttv5' : '',
      `-u "$${TOKEN_VARIABLE}"`,
      `-q ${qos}`,
      m.retain ? '-r' : '',
      `-t ${shellQuote(m.topic)}`,
      `-m ${shellQuote(text)}`,
    ]
      .filter(Boolean)
      .join(' ');
  }
  if (kind === 'mqtt.js') {
    return [
      "import mqtt from 'mqtt';",
      '',
      `const client = await mqtt.connectAsync('mqtt://${host}:${port}', {`,
      `  username: process.env.${TOKEN_VARIABLE},`,
      `  protocolVersion: ${v5 ? 5 : 4},`,
      '});',
      `await client.publishAsync(${JSON.stringify(m.topic)}, ${JSON.stringify(text)}, { qos: ${qos}, retain: ${m.retain} });`,
      'await client.endAsync();',
    ].join('\n');
  }
  return [
    'import os',
    'import paho.mqtt.client as mqtt',
    '',
    `client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.${v5 ? 'MQTTv5' : 'MQTTv311'})`,
    `client.username_pw_set(os.environ["${TOKEN_VARIABLE}"])`,
    `client.connect(${JSON.stringify(host)}, ${port})`,
    'client.loop_start()',
    `info = client.publish(${JSON.stringify(m.topic)}, ${JSON.stringify(text)}, qos=${qos}, retain=${m.retain ? 'True' : 'False'})`,
    'info.wait_for_publish()',
    'client.loop_stop()',
    'client.disconnect()',
  ].join('\n');
}

/** Messages as JSON Lines, oldest first. */
export function jsonLines(messages: InspectedMessage[]): string {
  return [...messages]
    .sort((a, b) => a.seq - b.seq)
    .map((m) => `${JSON.stringify(m)}\n`)
    .join('');
}
