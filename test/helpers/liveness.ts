import { existsSync, readFileSync } from 'node:fs';

/**
 * Is this process still running? A process that has exited but was not reaped yet (a zombie: its parent died and
 * the container's init does not reap) counts as gone: it runs no code and holds no resources but its pid.
 */
export function isRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync('/proc/self/stat')) {
    if (!existsSync(stat)) return false;
    try {
      const s = readFileSync(stat, 'utf8');
      return s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends what a failed test left running (by pid, never by name). */
export function killIfRunning(pids: readonly number[]): void {
  for (const pid of pids) {
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}
