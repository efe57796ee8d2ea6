import 'reflect-metadata';
import { userInfo } from 'node:os';
import { type App, createApp } from '../app';
import { runAudited } from '../audit/audit-context';
import type { Principal } from '../catalog/principal';
import { type Config, loadConfig } from '../config/config';

/**
 * What the CLI's admin commands run with (issue 19): the app without listening or syncing, and the operator as a
 * host admin, so every command goes through the same services (and checks) GraphQL does, and is audited with
 * the operator (the OS user) as the actor.
 */
const OPERATOR: Principal = { id: 'operator', kind: 'api-key', tenantId: '', tenantName: '', name: 'operator (CLI)', role: 'host-admin', groups: [] };

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export async function withOperator<T>(action: string, fn: (app: App, operator: Principal) => Promise<T>, overrides: Partial<Config> = {}): Promise<T> {
  const config: Config = { ...loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }), configFile: null, startSources: false, ...overrides };
  const app = await createApp(config);
  try {
    const user = operatorName();
    return await runAudited({ action: `cli:${action}`, requestId: null, actor: { id: `operator:${user}`, name: `${user} (CLI)`, role: 'operator', tenantId: null } }, () => fn(app, OPERATOR));
  } finally {
    await app.close();
  }
}

/** Data on stdout: JSON with --json, else aligned columns (a header and one line per row). */
export function printRows(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[], json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined || v === '' ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const table = [columns.map((c) => c.toUpperCase()), ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) process.stdout.write(`${row.map((v, i) => (i === row.length - 1 ? v : v.padEnd(widths[i]))).join('  ')}\n`);
}

/** One object on stdout: JSON with --json, else `key: value` lines. */
export function printObject(obj: Record<string, unknown>, json: boolean | undefined): void {
  if (json) process.stdout.write(`${JSON.stringify(obj, null, 2)}\n`);
  else for (const [k, v] of Object.entries(obj)) process.stdout.write(`${k}: ${v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
}
