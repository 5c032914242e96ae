import { Alert, Button, Code, Collapse, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { NODE_TYPES } from '../../../../shared/rule-engine.ts';
import { useTestScript } from '../../api/hooks.ts';
import { ScriptCodeEditor } from './script-code-editor.tsx';

type Config = Record<string, unknown>;

/**
 * What each script node does with its script's result (RuleChainController.testScript's scriptType), and
 * where its configuration keeps the JavaScript and the TBEL.
 */
interface ScriptSpec {
  scriptType: string;
  argNames: [string, string, string];
  js: string;
  tbel: string;
}
const MSG_ARGS: [string, string, string] = ['msg', 'metadata', 'msgType'];
const plain = (scriptType: string): ScriptSpec => ({
  scriptType,
  argNames: MSG_ARGS,
  js: 'jsScript',
  tbel: 'tbelScript',
});
const alarmDetails: ScriptSpec = {
  scriptType: 'json',
  argNames: MSG_ARGS,
  js: 'alarmDetailsBuildJs',
  tbel: 'alarmDetailsBuildTbel',
};
const SCRIPT_TYPES: Record<string, ScriptSpec> = {
  [NODE_TYPES.scriptFilter]: plain('filter'),
  [NODE_TYPES.scriptSwitch]: plain('switch'),
  [NODE_TYPES.scriptTransform]: plain('update'),
  [NODE_TYPES.log]: plain('string'),
  [NODE_TYPES.msgGenerator]: {
    ...plain('generate'),
    argNames: ['prevMsg', 'prevMetadata', 'prevMsgType'],
  },
  [NODE_TYPES.createAlarm]: alarmDetails,
  [NODE_TYPES.clearAlarm]: alarmDetails,
};

export const hasScript = (nodeType: string) => nodeType in SCRIPT_TYPES;

/** The configuration keys the script editor shows (the form leaves them out). */
export const scriptKeys = (nodeType: string): string[] => {
  const spec = SCRIPT_TYPES[nodeType];
  return spec ? [spec.js, spec.tbel] : [];
};

/** A script's output as a reader wants it: JSON indented, anything else as it came. */
export function prettyOutput(output: string): string {
  try {
    const parsed: unknown = JSON.parse(output);
    return typeof parsed === 'object' && parsed !== null ? JSON.stringify(parsed, null, 2) : output;
  } catch {
    return output;
  }
}

const mono = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } };

/** A monospace text area for code and JSON. */
function CodeArea(props: {
  label: string;
  description?: string;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  minRows?: number;
  maxRows?: number;
}) {
  return (
    <Textarea
      label={props.label}
      description={props.description}
      autosize
      minRows={props.minRows ?? 3}
      maxRows={props.maxRows ?? 10}
      spellCheck={false}
      value={props.value}
      styles={mono}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      data-testid={props.testId}
    />
  );
}

/**
 * The script of a script node (jsScript or tbelScript, per scriptLang) and a "test script" panel that
 * runs it on a sample message in the platform's sandbox, as ThingsBoard's node form does.
 */
export function ScriptEditor({
  nodeType,
  config,
  onChange,
}: {
  nodeType: string;
  config: Config;
  onChange: (config: Config) => void;
}) {
  const spec = SCRIPT_TYPES[nodeType]!;
  const lang = config.scriptLang === 'TBEL' ? 'TBEL' : 'JS';
  const key = lang === 'TBEL' ? spec.tbel : spec.js;
  const script = typeof config[key] === 'string' ? (config[key] as string) : '';
  const [open, setOpen] = useState(false);
  const [msg, setMsg] = useState('{\n  "temperature": 22.4,\n  "humidity": 78\n}');
  const [metadata, setMetadata] = useState(
    '{\n  "deviceName": "Test device",\n  "deviceType": "default",\n  "ts": "1700000000000"\n}',
  );
  const [msgType, setMsgType] = useState('POST_TELEMETRY_REQUEST');
  const [inputError, setInputError] = useState<string | null>(null);
  const test = useTestScript();

  const run = () => {
    let meta: Record<string, string>;
    try {
      meta = JSON.parse(metadata) as Record<string, string>;
    } catch (err) {
      setInputError(`Metadata is not JSON: ${(err as Error).message}`);
      return;
    }
    setInputError(null);
    test.mutate({
      body: { script, scriptType: spec.scriptType, argNames: spec.argNames, msg, metadata: meta, msgType },
      scriptLang: lang,
    });
  };

  return (
    <Stack gap="xs" data-testid="script-editor">
      <ScriptCodeEditor
        key={lang}
        lang={lang}
        label={`${spec.scriptType === 'json' ? 'Details builder' : 'Script'} (${lang === 'TBEL' ? 'TBEL' : 'JavaScript'})`}
        description={`function (${spec.argNames.join(', ')}) { … }`}
        value={script}
        onChange={(v) => onChange({ ...config, [key]: v })}
        testId="script-source"
      />
      <Group gap="xs">
        <Button size="xs" variant="light" onClick={() => setOpen((o) => !o)} data-testid="script-test-toggle">
          {open ? 'Hide test' : 'Test script'}
        </Button>
      </Group>
      <Collapse expanded={open}>
        <Stack gap="xs" data-testid="script-test-panel">
          <CodeArea
            label={spec.argNames[0] === 'msg' ? 'Message' : 'Previous message'}
            value={msg}
            onChange={setMsg}
            testId="script-test-msg"
          />
          <CodeArea label="Metadata" value={metadata} onChange={setMetadata} testId="script-test-metadata" />
          <TextInput
            label="Message type"
            value={msgType}
            onChange={(e) => setMsgType(e.currentTarget.value)}
            data-testid="script-test-msgtype"
          />
          <Group gap="xs">
            <Button size="xs" onClick={run} loading={test.isPending} data-testid="script-test-run">
              Run
            </Button>
            <Text size="xs" c="dimmed">
              Runs in the sandbox, with the same limits as the rule engine.
            </Text>
          </Group>
          {inputError && (
            <Alert color="red" variant="light" p="xs">
              {inputError}
            </Alert>
          )}
          {test.error && (
            <Alert color="red" variant="light" p="xs">
              {(test.error as Error).message}
            </Alert>
          )}
          {test.data?.error && (
            <Alert color="red" variant="light" p="xs" title="Error" data-testid="script-test-error">
              {test.data.error}
            </Alert>
          )}
          {test.data && !test.data.error && (
            <div>
              <Text size="sm" fw={500}>
                Output
              </Text>
              <Code
                block
                data-testid="script-test-output"
                style={{
                  whiteSpace: 'pre-wrap',
                  overflowWrap: 'anywhere',
                  maxHeight: '20rem',
                  overflowY: 'auto',
                }}
              >
                {prettyOutput(test.data.output)}
              </Code>
            </div>
          )}
        </Stack>
      </Collapse>
    </Stack>
  );
}
