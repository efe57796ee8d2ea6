import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WriteGate } from '../persistence/sqlite-immediate';
import type { SnapshotSql, SwapPlan, SwapResult } from './snapshot-sql';
import type { SnapshotStore } from './snapshot-store';

/**
 * The main thread's handle on the SQLite writer thread (sqlite-snapshot.worker.ts): each SnapshotSql operation is
 * a message, answered in order. Started on first use (a CLI command that never syncs starts no thread), ended by
 * close(). It keeps the process alive only while a call is pending (an idle thread never holds a process open).
 */
export class SqliteThreadStore implements SnapshotStore {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(
    private readonly path: string,
    private readonly gate: WriteGate | null = null,
  ) {}

  sourceState = this.op<SnapshotSql['sourceState']>('sourceState');
  upstreamStamps = this.op<SnapshotSql['upstreamStamps']>('upstreamStamps');
  storedListing = this.op<SnapshotSql['storedListing']>('storedListing');
  rawOf = this.op<SnapshotSql['rawOf']>('rawOf');
  toolStamps = this.op<SnapshotSql['toolStamps']>('toolStamps');
  decisions = this.op<SnapshotSql['decisions']>('decisions');
  stage = this.op<SnapshotSql['stage']>('stage');
  quarantineStaged = this.op<SnapshotSql['quarantineStaged']>('quarantineStaged');
  /** The one operation that takes the catalog file's write lock: main-thread writers wait for it on the gate. */
  swap = (plan: SwapPlan): Promise<SwapResult> => {
    const run = () => this.call('swap', [plan]) as Promise<SwapResult>;
    return this.gate ? this.gate.hold(run) : run();
  };
  discard = this.op<SnapshotSql['discard']>('discard');
  discardOlderThan = this.op<SnapshotSql['discardOlderThan']>('discardOlderThan');

  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    await this.call('close', []).catch(() => undefined);
    this.worker = null;
    await w.terminate();
  }

  private op<F extends (...a: never[]) => Promise<unknown>>(name: string): F {
    return ((...args: unknown[]) => this.call(name, args)) as unknown as F;
  }

  private call(op: string, args: unknown[]): Promise<unknown> {
    const w = this.start();
    const id = ++this.seq;
    if (this.pending.size === 0) w.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ id, op, args });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(join(__dirname, 'sqlite-snapshot.worker.js'), { workerData: { path: this.path } });
    w.unref();
    w.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: { message: string; code?: string } }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) w.unref();
      if (m.ok) p.resolve(m.result);
      else p.reject(Object.assign(new Error(m.error!.message), { code: m.error!.code }));
    });
    const fail = (err: Error) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (this.worker === w) this.worker = null;
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the SQLite snapshot thread exited (${code})`)));
    this.worker = w;
    return w;
  }
}
