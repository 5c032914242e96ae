import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  NumberInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import {
  DEFAULT_OTA_DEVICE_NAME_PATTERN,
  OTA_FAIL_REASONS,
  type OtaFailReason,
} from '../../../../shared/schemas/simulation.ts';
import { NumberField, TextField, type Binder } from '../../components/bound-fields.tsx';

const NEW_OTA = { devicesCount: 10, deviceType: 'default', failShare: 0.1, failReasons: ['checksum'] };
const NEW_PACKAGE = { title: 'sim-firmware', version: '1.0', sizeBytes: 65_536 };

const REASON_LABELS: Record<OtaFailReason, string> = {
  checksum: 'Checksum (a corrupted download)',
  download: 'Download (a chunk never comes)',
  update: 'Update (the install fails)',
};

/**
 * The scenario's devices that update themselves (scenario.ota): how many, of which profile, the share
 * that fails on purpose and how, and optionally a package the run makes and assigns itself.
 */
export function OtaFields({ b }: { b: Binder }) {
  const ota = b.value('ota');
  if (ota === undefined)
    return (
      <Group gap="xs">
        <Button
          size="compact-xs"
          variant="light"
          disabled={b.disabled}
          onClick={() => b.set('ota', NEW_OTA)}
          data-testid="add-ota-devices"
        >
          Add OTA devices
        </Button>
        <Text size="xs" c="dimmed">
          Devices of their own (not behind a gateway) that download and install a firmware package assigned to
          their profile on the OTA page, some failing on purpose.
        </Text>
      </Group>
    );
  const share = b.value('ota.failShare');
  const reasons = b.value('ota.failReasons');
  const chosen = Array.isArray(reasons) ? (reasons as string[]) : ['checksum'];
  const count = b.value('ota.devicesCount');
  const failing =
    typeof count === 'number' ? Math.round((typeof share === 'number' ? share : 0) * count) : null;
  const pkg = b.value('ota.package');
  return (
    <Fieldset
      legend={
        <Group gap="xs">
          <Text size="sm" fw={600}>
            OTA devices
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            ota
          </Text>
        </Group>
      }
      data-testid="ota-fields"
    >
      <Stack gap="xs">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <NumberField b={b} path="ota.devicesCount" label="Devices" min={1} />
          <TextField
            b={b}
            path="ota.deviceNamePattern"
            label="Device names"
            optional
            placeholder={DEFAULT_OTA_DEVICE_NAME_PATTERN}
          />
          <TextField
            b={b}
            path="ota.deviceType"
            label="Device profile"
            optional
            placeholder="default"
            description="Assign a package to it on the OTA page"
          />
          <NumberInput
            label="Failing on purpose (%)"
            description={failing === null ? undefined : `${failing} device(s) fail`}
            min={0}
            max={100}
            decimalScale={2}
            value={typeof share === 'number' ? Math.round(share * 10_000) / 100 : ''}
            onChange={(n) => b.set('ota.failShare', typeof n === 'number' ? n / 100 : undefined)}
            error={b.error('ota.failShare')}
            disabled={b.disabled}
            data-path="ota.failShare"
          />
        </SimpleGrid>
        <Checkbox.Group
          label="How they fail (taken in turn)"
          value={chosen}
          onChange={(v) =>
            b.set(
              'ota.failReasons',
              OTA_FAIL_REASONS.filter((r) => v.includes(r)),
            )
          }
          error={b.error('ota.failReasons')}
        >
          <Group gap="md" mt={4}>
            {OTA_FAIL_REASONS.map((r) => (
              <Checkbox key={r} value={r} label={REASON_LABELS[r]} disabled={b.disabled} />
            ))}
          </Group>
        </Checkbox.Group>
        <Switch
          label="Bring a package: made at start (seeded bytes, SHA256) and assigned to the profile"
          checked={pkg !== undefined}
          onChange={(e) => b.set('ota.package', e.currentTarget.checked ? NEW_PACKAGE : undefined)}
          disabled={b.disabled}
          data-testid="ota-package-switch"
        />
        {pkg !== undefined && (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextField b={b} path="ota.package.title" label="Package title" />
            <TextField b={b} path="ota.package.version" label="Package version" />
            <NumberField b={b} path="ota.package.sizeBytes" label="Package size (bytes)" min={1} />
          </SimpleGrid>
        )}
        <Group justify="space-between">
          <NumberField b={b} path="ota.chunkSize" label="Chunk size (bytes)" min={256} placeholder="16384" />
          <Button
            size="compact-xs"
            variant="subtle"
            color="red"
            disabled={b.disabled}
            onClick={() => b.set('ota', undefined)}
          >
            Remove OTA devices
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
