import '../../components/typebox-csp.ts';
import { Alert, Button, Group, List, Modal, NumberInput, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { formatIssue, scenarioIssues } from '../../../../shared/schemas/simulation.ts';
import { useCreateSimulation } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { navigate } from '../../router.tsx';
import { TEMPLATES, fromTemplate, uniqueName } from './scenario-templates.ts';

/** Creates a simulation from a template, with a name, a publish period and a number of devices. */
export function NewSimulationModal({
  opened,
  onClose,
  takenNames,
}: {
  opened: boolean;
  onClose: () => void;
  takenNames: string[];
}) {
  const create = useCreateSimulation();
  const [templateId, setTemplateId] = useState(TEMPLATES[0]!.id);
  const template = TEMPLATES.find((t) => t.id === templateId) ?? TEMPLATES[0]!;
  const [name, setName] = useState('');
  const [periodMs, setPeriodMs] = useState<number | string>(1000);
  const [devicesCount, setDevicesCount] = useState<number | string>('');

  useEffect(() => {
    if (!opened) return;
    setName(uniqueName(template.scenario.name, takenNames));
    setDevicesCount(template.scenario.gateways[0]?.devicesCount ?? 1);
    create.reset();
    // a new template or a reopened dialog starts from the template's own values
  }, [opened, templateId]); // not takenNames: a list refresh must not overwrite what was typed

  const scenario = useMemo(
    () =>
      fromTemplate(template, {
        name: name.trim(),
        periodMs: typeof periodMs === 'number' ? periodMs : undefined,
        devicesCount: typeof devicesCount === 'number' ? devicesCount : undefined,
      }),
    [template, name, periodMs, devicesCount],
  );
  const issues = useMemo(() => scenarioIssues(scenario), [scenario]);
  const fieldIssue = (suffix: string) =>
    issues.find((i) => i.path === suffix || i.path.endsWith(`.${suffix}`))?.message;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (issues.length) return;
    create.mutate(scenario, {
      onSuccess: (details) => {
        onClose();
        navigate(`/gateways/${details.id}`);
      },
    });
  };

  return (
    <Modal opened={opened} onClose={onClose} title="New simulation" size="lg">
      <form onSubmit={onSubmit} data-testid="new-simulation-form">
        <Stack gap="sm">
          <Radio.Group
            label="Template"
            value={templateId}
            onChange={setTemplateId}
            data-testid="simulation-template"
          >
            <Stack gap="xs" mt={4}>
              {TEMPLATES.map((t) => (
                <Radio key={t.id} value={t.id} label={t.label} description={t.description} />
              ))}
            </Stack>
          </Radio.Group>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={issues.find((i) => i.path === 'name')?.message}
            data-autofocus
          />
          <Group grow align="flex-start">
            <NumberInput
              label="Telemetry period (ms)"
              description="How often each device sends (every gateway)"
              min={10}
              step={100}
              allowDecimal={false}
              value={periodMs}
              onChange={setPeriodMs}
              error={fieldIssue('periodMs')}
            />
            <NumberInput
              label="Devices per gateway"
              description={`${template.scenario.gateways.length} gateway${template.scenario.gateways.length === 1 ? '' : 's'} in this template`}
              min={0}
              allowDecimal={false}
              value={devicesCount}
              onChange={setDevicesCount}
              error={fieldIssue('devicesCount')}
            />
          </Group>
          {issues.length > 0 && (
            <Alert color="red" variant="light" title="Not a valid scenario yet">
              <List size="sm">
                {issues.slice(0, 5).map((i) => (
                  <List.Item key={formatIssue(i)}>
                    <code>{i.path || '(scenario)'}</code>: {i.message}
                  </List.Item>
                ))}
              </List>
            </Alert>
          )}
          <Text size="xs" c="dimmed">
            Keys, RPC responders and attributes can be changed afterwards in the scenario editor.
          </Text>
          <ErrorAlert error={create.error} title="Could not create the simulation" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              type="submit"
              loading={create.isPending}
              disabled={issues.length > 0}
              data-testid="create-simulation"
            >
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
