import { expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';

const workerHandles = () =>
  process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker').length;

it('a platform that loaded every shipped sandbox leaves no worker running after stop(), so its process can exit', async () => {
  const before = workerHandles();
  const platform = await startTestPlatform();
  const token = await platform.login();
  const shipped = await platform.http('/api/sandboard/sandboxes/shipped', { token });
  const { data } = (await shipped.json()) as { data: { id: string }[] };
  expect(data.length).toBeGreaterThan(0);
  for (const { id } of data) {
    const loaded = await platform.http(`/api/sandboard/sandboxes/shipped/${id}/load`, {
      method: 'POST',
      json: {},
      token,
    });
    expect(loaded.status, id).toBe(200);
  }
  await platform.stop();
  expect(workerHandles()).toBe(before);
}, 120_000);
