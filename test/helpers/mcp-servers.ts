import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real MCP servers from npm (devDependencies) and the hostile fixture server, as toolcat sources. Resolved by
 * require.resolve, so the dead-code check (knip, issue 13) sees the devDependencies used.
 */
export const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY_BIN = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
export const HOSTILE_BIN = join(__dirname, '..', 'fixtures', 'hostile-mcp-server.js');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** server-everything over Streamable HTTP on a loopback port; resolves once it listens. */
export async function startEverythingHttp(): Promise<{ url: string; stop(): void; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20000);
    const onData = (c: Buffer) => {
      if (String(c).includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child, stop: () => child.kill('SIGTERM') };
}

/** Control files for one hostile server. */
export function hostileControl(): { toolsFile: string; modeFile: string; setMode(m: string): void; setTools(t: unknown[]): void; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-hostile-'));
  const toolsFile = join(dir, 'tools.json');
  const modeFile = join(dir, 'mode');
  writeFileSync(modeFile, 'normal');
  return {
    toolsFile,
    modeFile,
    setMode: (m) => writeFileSync(modeFile, m),
    setTools: (t) => writeFileSync(toolsFile, JSON.stringify(t)),
    env: { HOSTILE_TOOLS_FILE: toolsFile, HOSTILE_MODE_FILE: modeFile },
  };
}

export async function until<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 8000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
