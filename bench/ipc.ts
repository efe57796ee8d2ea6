import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** The parent's handle on one server worker (bench/worker.ts) in its own process. */
export class Worker {
  private seq = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private exited = false;

  private constructor(readonly child: ChildProcess) {
    child.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`worker: ${m.error}`));
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error(`worker exited (${code ?? signal})`));
      this.pending.clear();
    });
  }

  static start(label: string, execArgv: readonly string[] = []): Worker {
    const child = fork(join(__dirname, 'worker.js'), [label], {
      execArgv: [...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    return new Worker(child);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  call<T>(cmd: string, args: unknown = {}): Promise<T> {
    if (this.exited) return Promise.reject(new Error('worker has exited'));
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, cmd, args });
    });
  }

  /** Closes the app and ends the process (killed if it does not leave within 15 s). */
  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      await Promise.race([this.call('close'), new Promise((r) => setTimeout(r, 15_000))]);
    } catch {
      /* already gone */
    }
    if (!this.exited) {
      const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
      this.child.disconnect();
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
      if (!this.exited) this.child.kill('SIGKILL');
    }
  }
}
