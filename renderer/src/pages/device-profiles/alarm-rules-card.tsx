import { Button, Card, Fieldset, Group, Select, Stack, Switch, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { ALARM_SEVERITIES, type AlarmSeverity } from '../../../../shared/schemas/alarms.ts';
import { alarmRulesIssues } from '../../../../shared/schemas/device-profile-alarms.ts';
import type { DeviceProfile } from '../../api/transport-api.ts';
import { useSaveDeviceProfile } from '../../api/transport-hooks.ts';
import { issuesByPath, TextField, type Binder } from '../../components/bound-fields.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { DraftJsonText, DraftProblems, DraftViewSwitch, useJsonDraft } from '../../components/json-draft.tsx';
import { getAt, parsePath, setAt } from '../../components/json-path.ts';
import { newAlarm, newRule, SEVERITY_LABELS } from './alarm-rule-drafts.ts';
import { RuleFields } from './alarm-rule-fields.tsx';
import { profileSaveRequest } from './profile-save.ts';

type Draft = { alarms: unknown };

const savedAlarms = (profile: DeviceProfile): unknown => profile.profileData.alarms ?? [];

/** One alarm rule: its type, a create rule per severity, the clear rule and propagation to related entities. */
function AlarmFields({ b, index, onRemove }: { b: Binder; index: number; onRemove: () => void }) {
  const p = `alarms[${index}]`;
  const createRules = (b.value(`${p}.createRules`) ?? {}) as Record<string, unknown>;
  const severities = ALARM_SEVERITIES.filter((s) => createRules[s] !== undefined);
  const unused = ALARM_SEVERITIES.filter((s) => createRules[s] === undefined);
  const clearRule = b.value(`${p}.clearRule`);
  return (
    <Fieldset
      legend={
        <Text size="sm" fw={600}>
          {String(b.value(`${p}.alarmType`) || `Alarm rule ${index + 1}`)}
        </Text>
      }
      data-testid="alarm-rule-form"
    >
      <Stack gap="sm">
        <TextField b={b} path={`${p}.alarmType`} label="Alarm type" />
        {severities.map((severity) => (
          <RuleFields
            key={severity}
            b={b}
            path={`${p}.createRules.${severity}`}
            title={`Create ${SEVERITY_LABELS[severity]} alarm`}
            onRemove={() => b.set(`${p}.createRules.${severity}`, undefined)}
          />
        ))}
        {b.error(`${p}.createRules`) && (
          <Text size="sm" c="red">
            {b.error(`${p}.createRules`)}
          </Text>
        )}
        {unused.length > 0 && (
          <Select
            label="Add a create rule"
            placeholder="severity"
            data={unused.map((s) => ({ value: s, label: SEVERITY_LABELS[s] }))}
            value={null}
            onChange={(s) => s && b.set(`${p}.createRules.${s as AlarmSeverity}`, newRule())}
            disabled={b.disabled}
            maw={260}
            data-testid="add-create-rule"
          />
        )}
        {clearRule ? (
          <RuleFields
            b={b}
            path={`${p}.clearRule`}
            title="Clear rule"
            onRemove={() => b.set(`${p}.clearRule`, null)}
          />
        ) : (
          <Group>
            <Button
              size="compact-sm"
              variant="light"
              onClick={() => b.set(`${p}.clearRule`, newRule())}
              disabled={b.disabled}
            >
              Add clear rule
            </Button>
          </Group>
        )}
        <Group justify="space-between">
          <Switch
            label="Propagate the alarm to related entities"
            checked={b.value(`${p}.propagate`) === true}
            onChange={(e) => b.set(`${p}.propagate`, e.currentTarget.checked)}
            disabled={b.disabled}
          />
          <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove} disabled={b.disabled}>
            Remove alarm rule
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

/**
 * The profile's alarm rules (ThingsBoard's profileData.alarms) as a form, with the whole list as JSON
 * for what the form does not show (COMPLEX predicates, schedules); problems name their JSON path.
 */
export function AlarmRulesCard({ profile, canEdit }: { profile: DeviceProfile; canEdit: boolean }) {
  const save = useSaveDeviceProfile();
  const saved = useMemo(() => savedAlarms(profile), [profile]);
  const d = useJsonDraft(saved);
  const { dirty } = d;
  const draft: Draft = { alarms: d.draft };

  const issues = useMemo(() => alarmRulesIssues(d.draft, 'alarms'), [d.draft]);
  const byPath = useMemo(() => issuesByPath(issues), [issues]);
  const b: Binder = {
    value: (path) => getAt(draft, parsePath(path)),
    error: (path) => byPath.get(path),
    set: (path, value) => d.replace((setAt(draft, parsePath(path), value) as Draft).alarms),
    disabled: !canEdit,
  };
  const alarms = Array.isArray(draft.alarms) ? (draft.alarms as unknown[]) : [];

  const discard = () => {
    d.replace(saved);
    save.reset();
  };
  const submit = () =>
    save.mutate(
      profileSaveRequest(profile, { profileData: { ...profile.profileData, alarms: draft.alarms } }),
      { onSuccess: (p) => d.replace(savedAlarms(p)) },
    );
  const addAlarm = () => {
    let n = alarms.length + 1;
    const types = new Set(alarms.map((a) => (a as { alarmType?: unknown }).alarmType));
    while (types.has(`New alarm ${n}`)) n++;
    b.set('alarms', [...alarms, newAlarm(`New alarm ${n}`)]);
  };

  return (
    <Card withBorder radius="md" p="md" data-testid="alarm-rules-card">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={4}>Alarm rules</Title>
          <Group gap="xs">
            <DraftViewSwitch d={d} label="Alarm rules view" testId="alarm-rules-view" />
            {dirty && (
              <Text size="xs" c="dimmed">
                Unsaved changes
              </Text>
            )}
            {canEdit && (
              <>
                <Button variant="default" size="xs" onClick={discard} disabled={!dirty || save.isPending}>
                  Discard
                </Button>
                <Button
                  size="xs"
                  onClick={submit}
                  loading={save.isPending}
                  disabled={!dirty || issues.length > 0 || d.textError !== null}
                  data-testid="save-alarm-rules"
                >
                  Save alarm rules
                </Button>
              </>
            )}
          </Group>
        </Group>
        <Text size="sm" c="dimmed">
          The device profile node of the root rule chain raises an alarm when a create rule holds (the highest
          severity first) and clears it when the clear rule holds.
        </Text>
        <ErrorAlert error={save.error} title="Could not save the alarm rules" />
        <DraftProblems d={d} issues={issues} testId="alarm-rules" whole="(alarm rules)" />
        {d.view === 'form' ? (
          d.textError ? null : (
            <Stack gap="sm">
              {!Array.isArray(draft.alarms) && (
                <Text size="sm" c="dimmed">
                  The rules are not a list: fix them in the JSON view.
                </Text>
              )}
              {alarms.length === 0 && Array.isArray(draft.alarms) && (
                <Text size="sm" c="dimmed" data-testid="no-alarm-rules">
                  No alarm rules: devices of this profile raise no alarms of their own.
                </Text>
              )}
              {alarms.map((_, i) => (
                <AlarmFields
                  key={i}
                  b={b}
                  index={i}
                  onRemove={() =>
                    b.set(
                      'alarms',
                      alarms.filter((_a, j) => j !== i),
                    )
                  }
                />
              ))}
              {canEdit && Array.isArray(draft.alarms) && (
                <Group>
                  <Button variant="light" onClick={addAlarm} data-testid="add-alarm-rule">
                    Add alarm rule
                  </Button>
                </Group>
              )}
            </Stack>
          )
        ) : (
          <DraftJsonText
            d={d}
            label="Alarm rules JSON"
            readOnly={!canEdit}
            minRows={12}
            testId="alarm-rules-json"
          />
        )}
      </Stack>
    </Card>
  );
}
