import { type ChildProcess, spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type ChildReaper, childReaper } from './child-reaper';
import { MessageTooLargeError } from './message-too-large';
import type { NotificationGate } from './notification-gate';

/** Every JSON-RPC response and request has an "id"; a line without these bytes can only be a notification (or noise). */
const ID_KEY = Buffer.from('"id"');

/**
 * stdio transport for untrusted MCP servers. Unlike the SDK's, it caps the size of one message (a server
 * that streams an endless line is killed instead of filling memory), keeps only the tail of stderr for the
 * error report, tolerates non-JSON lines without crashing, and kills the server's whole process group, also
 * when toolcat itself is killed (the group is registered with the child reaper; issue 12 defect 6).
 * Notifications pass the source's NotificationGate before they are parsed: past its per-second cap they are
 * dropped after a byte scan, and past its read budget the server's stdout is paused until the next second
 * (issue 12 defect 4).
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private stderrTail = '';
  private closed = false;
  private garbageLines = 0;
  private fatal: Error | null = null;
  private paused = false;
  private closing: Promise<void> | null = null;
  private readonly maxMessageBytes: number;
  private readonly gate: NotificationGate | null;
  private readonly reaper: ChildReaper;

  constructor(
    private readonly params: { command: string; args: readonly string[]; env: Record<string, string>; cwd?: string },
    opts: { maxMessageBytes: number; gate?: NotificationGate | null; reaper?: ChildReaper },
  ) {
    this.maxMessageBytes = opts.maxMessageBytes;
    this.gate = opts.gate ?? null;
    this.reaper = opts.reaper ?? childReaper;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // own process group: close() also ends what `npx` and shells start
        windowsHide: true,
      });
      this.child = child;
      // Registered before anything else can happen: toolcat killed from here on still ends the group.
      const pgid = child.pid;
      if (pgid) this.reaper.watch(pgid);
      child.once('error', (err) => {
        reject(err);
        this.fail(new Error(`cannot start the server: ${err.message}`));
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        if (!this.closed) this.fail(new Error(`the server exited (${signal ?? `code ${code}`})${this.stderrTail ? `; stderr: ${this.stderrTail.slice(-500)}` : ''}`));
        // What the server started dies with it (a group outlives its leader; issue 12 defect 6).
        if (pgid) {
          killGroup(child, 'SIGKILL');
          this.reaper.unwatch(pgid);
        }
        this.finish();
      });
      child.stdout!.on('data', (chunk: Buffer) => this.onData(chunk));
      child.stderr!.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
      });
      child.stdin!.on('error', () => undefined); // EPIPE after the server died is reported through 'exit'
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) throw new Error('not connected');
    await new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server's group and resolves once it exited; a second close() (the SDK's and the caller's) waits for the same. */
  close(): Promise<void> {
    this.closing ??= this.end();
    return this.closing;
  }

  private async end(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 2000);
      timer.unref();
      await new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once('exit', () => r());
      });
      clearTimeout(timer);
    }
    this.finish();
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** The server's pid (its process group) while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      let line: Buffer;
      if (this.chunks.length) {
        this.chunks.push(chunk.subarray(start, i));
        line = Buffer.concat(this.chunks);
        this.chunks = [];
        this.buffered = 0;
      } else {
        line = chunk.subarray(start, i);
      }
      start = i + 1;
      // A notification past the source's per-second cap is dropped here, before any string or JSON is made of it.
      if (this.gate && line.length > 2 && line.indexOf(ID_KEY) === -1 && !this.gate.admit()) continue;
      this.deliver(line.toString('utf8').replace(/\r$/, ''));
      if (this.closed) return;
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.buffered += chunk.length - start;
      if (this.buffered > this.maxMessageBytes) {
        this.fail(new MessageTooLargeError(`the server sent a message larger than ${this.maxMessageBytes} bytes`));
        void this.close();
        return;
      }
    }
    this.backpressure();
  }

  /** A flood past the read budget: stop reading until the next second; the server's writes wait on its pipe. */
  private backpressure(): void {
    const ms = this.gate?.pauseMs() ?? 0;
    const stdout = this.child?.stdout;
    if (ms <= 0 || this.paused || !stdout) return;
    this.paused = true;
    stdout.pause();
    setTimeout(() => {
      this.paused = false;
      if (!this.closed && !stdout.destroyed) stdout.resume();
    }, ms).unref();
  }

  private deliver(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      // Servers that log to stdout are common; a few stray lines are skipped, a stream of them is fatal.
      if (++this.garbageLines > 1000) {
        this.fail(new Error('the server writes non-JSON-RPC output to stdout'));
        void this.close();
      }
      return;
    }
    this.onmessage?.(message);
  }

  private fail(err: Error): void {
    this.fatal ??= err;
    this.onerror?.(err);
  }

  /** The first fatal problem (a killed oversize message, an exit), to explain a request that failed with it. */
  get fatalError(): Error | null {
    return this.fatal;
  }

  private finish(): void {
    if (this.child === null) return;
    this.child = null;
    this.onclose?.();
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}
