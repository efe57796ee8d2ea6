import { type ChildProcess, spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * stdio transport for untrusted MCP servers. Unlike the SDK's, it caps the size of one message (a server
 * that streams an endless line is killed instead of filling memory), keeps only the tail of stderr for the
 * error report, tolerates non-JSON lines without crashing, and kills the server's whole process group.
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

  constructor(
    private readonly params: { command: string; args: readonly string[]; env: Record<string, string>; cwd?: string },
    private readonly maxMessageBytes: number,
  ) {}

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
      child.once('error', (err) => {
        reject(err);
        this.fail(new Error(`cannot start the server: ${err.message}`));
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        if (!this.closed) this.fail(new Error(`the server exited (${signal ?? `code ${code}`})${this.stderrTail ? `; stderr: ${this.stderrTail.slice(-500)}` : ''}`));
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

  async close(): Promise<void> {
    if (this.closed) return;
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

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      this.chunks.push(chunk.subarray(start, i));
      const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
      this.chunks = [];
      this.buffered = 0;
      start = i + 1;
      this.deliver(line);
      if (this.closed) return;
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.buffered += chunk.length - start;
      if (this.buffered > this.maxMessageBytes) {
        this.fail(new Error(`the server sent a message larger than ${this.maxMessageBytes} bytes`));
        void this.close();
      }
    }
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
