import {
  Anchor,
  Badge,
  Button,
  Card,
  FileInput,
  Group,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { CHECKSUM_ALGORITHMS, OTA_UPDATE_STATES } from '../../../../shared/schemas/ota.ts';
import { useApi } from '../../api/api-context.tsx';
import {
  deleteOtaPackage,
  otaPackages,
  otaRollout,
  saveOtaPackageInfo,
  uploadOtaPackage,
  type OtaPackageInfo,
} from '../../api/ota-api.ts';
import type { SaveDeviceProfileRequest } from '../../api/transport-api.ts';
import { useDeviceProfiles, useSaveDeviceProfile } from '../../api/transport-hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { StatTile } from '../../components/stat-tile.tsx';
import { Link } from '../../router.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';

const STATE_COLORS: Record<string, string> = {
  UPDATED: 'var(--mantine-color-green-6)',
  FAILED: 'var(--mantine-color-red-6)',
};

/** OTA updates: packages (upload with progress, checksum), assignment to a profile, a rollout's progress. */
export default function OtaPage(_props: { params: PageParams }) {
  const client = useApi();
  const packages = useQuery({
    queryKey: ['otaPackages'],
    queryFn: () => otaPackages(client),
    refetchInterval: 5_000,
  });
  const [selected, setSelected] = useState<string | null>(null);
  const list = packages.data?.data ?? [];
  const current = list.find((p) => p.id.id === selected) ?? list[0];
  return (
    <Stack>
      <PageHeader
        title="OTA updates"
        description="Firmware and software packages as ThingsBoard keeps them: devices get fw_* shared attributes, download chunks over MQTT or HTTP and report their states."
      />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <UploadCard />
        <Card withBorder radius="md" p="md">
          <Stack gap="xs">
            <Title order={4}>Packages</Title>
            <ErrorAlert error={packages.error} title="Could not load the packages" />
            <PackageTable packages={list} selected={current?.id.id} onSelect={setSelected} />
          </Stack>
        </Card>
      </SimpleGrid>
      {current && <RolloutCard pkg={current} />}
    </Stack>
  );
}

function UploadCard() {
  const client = useApi();
  const qc = useQueryClient();
  const profiles = useDeviceProfiles({ page: 0, pageSize: 100 });
  const [profileId, setProfileId] = useState<string | null>(null);
  const [type, setType] = useState<'FIRMWARE' | 'SOFTWARE'>('FIRMWARE');
  const [title, setTitle] = useState('');
  const [version, setVersion] = useState('');
  const [algorithm, setAlgorithm] = useState<string>('SHA256');
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const upload = useMutation({
    mutationFn: async () => {
      const profile = profileId ?? profiles.data?.data.find((p) => p.default)?.id.id;
      if (!profile || !file) throw new Error('Choose a device profile and a file');
      setProgress(0);
      const info = await saveOtaPackageInfo(client, {
        title,
        version,
        type,
        deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile },
      });
      try {
        return await uploadOtaPackage(client, info.id.id, file, algorithm, setProgress);
      } catch (err) {
        await deleteOtaPackage(client, info.id.id).catch(() => undefined);
        throw err;
      }
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: ['otaPackages'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    upload.mutate();
  };
  const profileOptions = (profiles.data?.data ?? []).map((p) => ({ value: p.id.id, label: p.name }));
  return (
    <Card withBorder radius="md" p="md">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Title order={4}>Upload a package</Title>
          <SimpleGrid cols={2}>
            <TextInput
              label="Title"
              required
              value={title}
              onChange={(e) => setTitle(e.currentTarget.value)}
            />
            <TextInput
              label="Version"
              required
              value={version}
              onChange={(e) => setVersion(e.currentTarget.value)}
            />
            <Select
              label="Device profile"
              data={profileOptions}
              value={profileId ?? profiles.data?.data.find((p) => p.default)?.id.id ?? null}
              onChange={setProfileId}
              allowDeselect={false}
            />
            <Select
              label="Type"
              data={['FIRMWARE', 'SOFTWARE']}
              value={type}
              onChange={(v) => setType((v as 'FIRMWARE' | 'SOFTWARE' | null) ?? 'FIRMWARE')}
              allowDeselect={false}
            />
            <Select
              label="Checksum algorithm"
              data={[...CHECKSUM_ALGORITHMS]}
              value={algorithm}
              onChange={(v) => setAlgorithm(v ?? 'SHA256')}
              allowDeselect={false}
            />
            <FileInput
              label="File"
              required
              value={file}
              onChange={setFile}
              placeholder="Choose a file"
              clearable
            />
          </SimpleGrid>
          {progress !== null && (
            <Progress value={progress * 100} aria-label="Upload progress" animated={upload.isPending} />
          )}
          <ErrorAlert error={upload.error} title="Upload refused" />
          {upload.data && (
            <Text size="sm" data-testid="ota-uploaded">
              Uploaded {upload.data.title} {upload.data.version}: {upload.data.checksumAlgorithm}{' '}
              <CopyValue value={upload.data.checksum ?? ''} />
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={upload.isPending}>
              Upload
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            The same with curl: POST /api/otaPackage, then
          </Text>
          <CopyValue
            block
            value={`curl -X POST -H "X-Authorization: Bearer $TOKEN" -F file=@fw.bin "${window.location.origin}/api/otaPackage/$PACKAGE_ID?checksumAlgorithm=SHA256"`}
          />
        </Stack>
      </form>
    </Card>
  );
}

function PackageTable({
  packages,
  selected,
  onSelect,
}: {
  packages: OtaPackageInfo[];
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const client = useApi();
  const qc = useQueryClient();
  const saveProfile = useSaveDeviceProfile();
  const profiles = useDeviceProfiles({ page: 0, pageSize: 100 });
  const remove = useMutation({
    mutationFn: (id: string) => deleteOtaPackage(client, id),
    onSettled: () => void qc.invalidateQueries({ queryKey: ['otaPackages'] }),
  });
  const assign = (pkg: OtaPackageInfo) => {
    const profile = profiles.data?.data.find((p) => p.id.id === pkg.deviceProfileId?.id);
    if (!profile) return;
    const key = pkg.type === 'FIRMWARE' ? 'firmwareId' : 'softwareId';
    saveProfile.mutate({
      ...profile,
      provisionType: profile.provisionType as SaveDeviceProfileRequest['provisionType'],
      [key]: { entityType: 'OTA_PACKAGE', id: pkg.id.id },
    });
  };
  if (packages.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No packages yet: upload one.
      </Text>
    );
  return (
    <>
      <ErrorAlert error={remove.error ?? saveProfile.error} title="Refused" />
      <Table.ScrollContainer minWidth={560}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Package</Table.Th>
              <Table.Th>Size</Table.Th>
              <Table.Th>Checksum</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {packages.map((p) => {
              const profile = profiles.data?.data.find((x) => x.id.id === p.deviceProfileId?.id);
              const assigned =
                profile && (p.type === 'FIRMWARE' ? profile.firmwareId : profile.softwareId)?.id === p.id.id;
              return (
                <Table.Tr
                  key={p.id.id}
                  bg={p.id.id === selected ? 'var(--mantine-color-default-hover)' : undefined}
                >
                  <Table.Td>
                    <Button variant="subtle" size="compact-sm" onClick={() => onSelect(p.id.id)}>
                      {p.title} {p.version}
                    </Button>
                    <Badge variant="light" ml={4}>
                      {p.type}
                    </Badge>
                    {assigned && (
                      <Badge variant="light" color="green" ml={4}>
                        {profile.name}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {p.dataSize === null ? (p.url ? 'URL' : '—') : `${(p.dataSize / 1024).toFixed(1)} KiB`}
                  </Table.Td>
                  <Table.Td>
                    {p.checksum ? (
                      <CopyValue
                        value={p.checksum}
                        shown={`${p.checksumAlgorithm} ${p.checksum.slice(0, 12)}…`}
                      />
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="compact-xs"
                        variant="light"
                        disabled={!!assigned || !profile}
                        onClick={() => assign(p)}
                      >
                        Assign to profile
                      </Button>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        onClick={() => remove.mutate(p.id.id)}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

function RolloutCard({ pkg }: { pkg: OtaPackageInfo }) {
  const client = useApi();
  const rollout = useQuery({
    queryKey: ['otaRollout', pkg.id.id],
    queryFn: () => otaRollout(client, pkg.id.id),
    refetchInterval: 2_000,
  });
  const r = rollout.data;
  const chart = OTA_UPDATE_STATES.map((state) => ({ state, devices: r?.states[state] ?? 0 }));
  const failures = Object.entries(r?.failures ?? {}).sort((a, b) => b[1] - a[1]);
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>
          Rollout of {pkg.title} {pkg.version}
        </Title>
        <ErrorAlert error={rollout.error} title="Could not load the rollout" />
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <StatTile label="Devices" value={r ? String(r.devices) : undefined} testId="ota-rollout-devices" />
          <StatTile
            label="Updated"
            value={r ? String(r.states.UPDATED ?? 0) : undefined}
            color="green"
            testId="ota-rollout-updated"
          />
          <StatTile
            label="In progress"
            value={r ? String(r.devices - (r.states.UPDATED ?? 0) - (r.states.FAILED ?? 0)) : undefined}
          />
          <StatTile
            label="Failed"
            value={r ? String(r.states.FAILED ?? 0) : undefined}
            color="red"
            testId="ota-rollout-failed"
          />
        </SimpleGrid>
        <div style={{ width: '100%', height: 220 }} role="img" aria-label="Devices per update state">
          <ResponsiveContainer>
            <BarChart data={chart}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="state" fontSize={11} />
              <YAxis allowDecimals={false} fontSize={11} />
              <Tooltip />
              <Bar dataKey="devices" fill="var(--mantine-color-blue-6)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
        <Text size="xs" c="dimmed">
          No hardware at hand? Add OTA devices of this package&apos;s profile to a scenario on{' '}
          <Anchor component={Link} to="/gateways" size="xs">
            Gateways &amp; Simulation
          </Anchor>
          : they update themselves, some failing on purpose.
        </Text>
        <Title order={5}>Failures by reason</Title>
        {failures.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Table data-testid="ota-rollout-failures">
            <Table.Tbody>
              {failures.map(([reason, n]) => (
                <Table.Tr key={reason}>
                  <Table.Td>{reason}</Table.Td>
                  <Table.Td c={STATE_COLORS.FAILED}>{n}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}
