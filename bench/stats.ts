import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Small measurement helpers shared by the benchmark processes (no dependencies). */

/** Nearest-rank percentile of an ascending-sorted sample (q in 0..100); NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil((q / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(samples: ArrayLike<number>): LatencySummary {
  const s = Float64Array.from(samples as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i];
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN, mean: s.length ? sum / s.length : NaN };
}

let clkTck: number | null = null;
function ticksPerSecond(): number {
  if (clkTck === null) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return (utime + stime) / ticksPerSecond();
  } catch {
    return NaN;
  }
}

/** Resident set size and its high-water mark (bytes) of a process, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? (bytes / 1024 ** 2).toFixed(0) : 'n/a';
}

/** A number with sensible precision for a table cell. */
export function fmt(v: number, digits?: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  if (digits !== undefined) return v.toFixed(digits);
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) && Number.isFinite(b) ? a / b : NaN;
}

export function markdownTable(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  return [`| ${head.map(esc).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
