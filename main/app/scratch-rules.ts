import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv } from '../config.ts';
import type { ScratchRules } from '../rule-engine/chain-tests/run-cases.ts';
import { setupDomain } from './domain.ts';
import { Lifecycle } from './lifecycle.ts';
import { setupRuleEngine } from './rule-engine.ts';
import { setupStore } from './store.ts';

/**
 * A platform of its own for rule chain tests: store, domain and rule engine on a temporary data directory,
 * no ports; stop() removes it all. Nothing a test does reaches the user's data.
 */
export async function startScratchRules(): Promise<ScratchRules> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-chain-test-'));
  const config = { ...configFromEnv({}), dataDir, logLevel: 'silent', storeBudgetBytes: 256 * 1024 * 1024 };
  const life = new Lifecycle();
  life.onStop(() => rmSync(dataDir, { recursive: true, force: true }));
  try {
    const db = await setupStore(config, life);
    const { services } = await setupDomain(db, config, life);
    const { ruleChains } = await setupRuleEngine(services, config, life);
    return { services, ruleChains, stop: () => life.stop() };
  } catch (err) {
    await life.stop().catch(() => undefined);
    throw err;
  }
}
