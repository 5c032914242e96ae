/**
 * Runs SQL statements in Debian's native sqlite3 command (the baseline of the report benchmark) and
 * reads the time of each from its `.timer on` lines.
 */
import { spawn } from 'node:child_process';

export const SQLITE3 = process.env.BENCH_SQLITE3 ?? '/usr/bin/sqlite3';

export async function sqliteVersion(): Promise<string> {
  const { stdout } = await runSqlite(':memory:', 'SELECT sqlite_version();\n');
  return stdout.trim();
}

function runSqlite(dbPath: string, script: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SQLITE3, ['-bail', dbPath], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${SQLITE3} exited with ${code}: ${stderr}`));
      else resolve({ stdout, stderr });
    });
    child.stdin.end(script);
  });
}

export interface NativeTimes {
  /** wall time of each round, ms */
  real: number[];
  /** CPU time (user + sys) of each round, ms */
  cpu: number[];
}

/**
 * Runs `statements` `iterations` times in one sqlite3 process (after one untimed warm-up round) and
 * returns the time of each round in ms (the sum of its statements' "Run Time" figures).
 */
export async function timeStatements(
  dbPath: string,
  statements: string[],
  iterations: number,
  pragmas: string[] = [],
): Promise<NativeTimes> {
  const round = statements.map((s) => `${s.trim().replace(/;$/, '')};\n`).join('');
  const script =
    pragmas.map((p) => `${p};\n`).join('') +
    '.output /dev/null\n' +
    round +
    '.timer on\n' +
    round.repeat(iterations);
  const { stdout } = await runSqlite(dbPath, script);
  const lines = [...stdout.matchAll(/Run Time: real ([\d.]+) user ([\d.]+) sys ([\d.]+)/g)];
  if (lines.length !== iterations * statements.length)
    throw new Error(`expected ${iterations * statements.length} timings from sqlite3, got ${lines.length}`);
  const times: NativeTimes = { real: [], cpu: [] };
  for (let i = 0; i < iterations; i++) {
    let real = 0;
    let cpu = 0;
    for (let j = 0; j < statements.length; j++) {
      const m = lines[i * statements.length + j]!;
      real += Number(m[1]) * 1000;
      cpu += (Number(m[2]) + Number(m[3])) * 1000;
    }
    times.real.push(real);
    times.cpu.push(cpu);
  }
  return times;
}
