import { loadConfigFile } from '../config/config-file';
import { planLines } from '../services/config-apply.service';
import { withOperator } from './operator';

/**
 * `toolcat config plan|apply <file>` (issue 19): the exact diff, and applying it with the ownership rule of
 * services/config-apply.service.ts. The same lines are what start-up logs. Loaded only when one runs.
 */
interface ConfigOptions {
  readonly json?: boolean;
  readonly prune?: boolean;
  readonly resetDrift?: boolean;
}

export function plan(file: string, o: ConfigOptions): Promise<void> {
  const loaded = loadConfigFile(file);
  return withOperator('config plan', async (app) => {
    const p = await app.services.config.plan(loaded, { resetDrift: o.resetDrift });
    if (o.json) process.stdout.write(`${JSON.stringify(p, null, 2)}\n`);
    else process.stdout.write(`${planLines(p, { prune: o.prune }).join('\n')}\n`);
  });
}

export function apply(file: string, o: ConfigOptions): Promise<void> {
  const loaded = loadConfigFile(file);
  // `config apply` is the operator saying so: it applies even though another file was applied (the plan says which).
  return withOperator('config apply', async (app) => {
    const r = await app.services.config.apply(loaded, { prune: o.prune, resetDrift: o.resetDrift, force: true, by: 'toolcat config apply' });
    if (o.json) process.stdout.write(`${JSON.stringify({ applied: true, written: r.written, pruned: r.pruned, plan: r.plan }, null, 2)}\n`);
    else process.stdout.write(`${planLines(r.plan, { prune: r.pruned }).join('\n')}\n${r.written ? 'applied' : 'already applied: nothing changed, nothing written'}${r.plan.remove.length && !r.pruned ? ' (removals kept: add --prune to remove them)' : ''}\n`);
  });
}
