import { sha256Hex } from '../shared/sha256';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parseDocument } from 'yaml';
import type { HostExtensionInput } from '../catalog/host-extension';

/**
 * Loads the toolcat config file (YAML or JSON; the YAML parser reads both): host extensions and MCP servers.
 * Every problem names the file, the place inside it (JSON Pointer) and what is wrong; nothing is applied
 * unless all of it is valid.
 */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ReadonlyArray<{ readonly at: string; readonly problem: string }>,
  ) {
    super(`${file}: invalid config file:\n${problems.map((p) => `  - at ${p.at || '/'}: ${p.problem}`).join('\n')}`);
    this.name = 'ConfigFileError';
  }
}

const schemaPath = join(__dirname, '..', '..', '..', 'schemas', 'config', 'toolcat-config.schema.json');
let validate: ReturnType<Ajv2020['compile']> | null = null;

export interface ConfigFileSource {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly command?: string;
  readonly args?: string[];
  readonly env?: Record<string, string | { fromEnv: string }>;
  readonly url?: string | { fromEnv: string };
  readonly headers?: Record<string, string | { fromEnv: string }>;
  readonly tenant?: string;
  readonly driftPolicy?: 'withhold' | 'keep-serving';
  readonly syncIntervalSeconds?: number;
  readonly enabled?: boolean;
}

export interface ConfigFile {
  readonly file: string;
  readonly extensions: HostExtensionInput[];
  readonly mcpServers: ConfigFileSource[];
  /** sha256 of the canonical JSON of the content: the same for the same declarations, whatever the formatting. */
  readonly hash: string;
}

/** Canonical JSON (keys sorted at every level), the input of every hash of config content. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export function loadConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigFileError(file, [{ at: '', problem: `cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` }]);
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    throw new ConfigFileError(file, doc.errors.map((e) => ({ at: `line ${e.linePos?.[0].line ?? '?'}, column ${e.linePos?.[0].col ?? '?'}`, problem: e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '') })));
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  validate ??= new Ajv2020({ allErrors: true, strict: true, verbose: true }).compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
  if (!validate(data)) throw new ConfigFileError(file, schemaProblems(validate.errors ?? []));
  const extensions = (data as { extensions?: HostExtensionInput[] }).extensions ?? [];
  const mcpServers = (data as { mcpServers?: ConfigFileSource[] }).mcpServers ?? [];
  const seen = new Map<string, number>();
  const dupes: Array<{ at: string; problem: string }> = [];
  extensions.forEach((x, i) => {
    const first = seen.get(x.name);
    if (first !== undefined) dupes.push({ at: `/extensions/${i}/name`, problem: `duplicate name "${x.name}" (first at /extensions/${first})` });
    else seen.set(x.name, i);
  });
  const sourceNames = new Map<string, number>();
  mcpServers.forEach((x, i) => {
    const first = sourceNames.get(x.name);
    if (first !== undefined) dupes.push({ at: `/mcpServers/${i}/name`, problem: `duplicate name "${x.name}" (first at /mcpServers/${first})` });
    else sourceNames.set(x.name, i);
  });
  if (dupes.length) throw new ConfigFileError(file, dupes);
  return { file, extensions, mcpServers, hash: sha256Hex(canonicalJson({ extensions, mcpServers })) };
}

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
  readonly parentSchema?: unknown;
  readonly data?: unknown;
}

/**
 * Issue 19: each problem names the entry it is about (`/mcpServers/2/command`, not `/mcpServers/2`) and, where the
 * schema has a closed list, the allowed values. `if`/`then` wrappers only repeat what their inner errors say.
 */
function schemaProblems(errors: readonly SchemaError[]): Array<{ at: string; problem: string }> {
  const out: Array<{ at: string; problem: string }> = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    if (e.keyword === 'additionalProperties') {
      const field = String(e.params.additionalProperty);
      const allowed = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      out.push({ at: `${e.instancePath}/${field}`, problem: `unknown field "${field}"${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ''}` });
    } else if (e.keyword === 'required') {
      out.push({ at: `${e.instancePath}/${String(e.params.missingProperty)}`, problem: 'is required' });
    } else if (e.keyword === 'enum') {
      const allowed = (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      out.push({ at: e.instancePath, problem: `must be one of ${allowed} (got ${JSON.stringify(e.data)})` });
    } else if (e.keyword === 'const') {
      out.push({ at: e.instancePath, problem: `must be ${JSON.stringify(e.params.allowedValue)} (got ${JSON.stringify(e.data)})` });
    } else {
      out.push({ at: e.instancePath, problem: e.message ?? 'invalid' });
    }
  }
  return out;
}
