import type { Classification } from './descriptor';

/**
 * A host extension as an admin or the config file declares it (untrusted until it passes the ingest gate). A domain
 * type, so the config file's loader and the admin service share it without config/ importing services/ (issue 13).
 */
export interface HostExtensionInput extends Classification {
  readonly name: string;
  readonly title?: string | null;
  readonly description?: string | null;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  /** null/absent: a global tool (visible wherever a grant allows it); otherwise only that tenant's. */
  readonly tenantId?: string | null;
  /** How its calls are made (issue 14); absent: calls answer NOT_IMPLEMENTED. */
  readonly implementation?: ExtensionImplementationSpec | null;
}

/** A secret: a literal, or the name of an environment variable of the toolcat process, read when it is used. */
export type SecretSpec = string | { readonly fromEnv: string };

/** An HTTP endpoint the host runs; toolcat signs each request with the secret (docs/extensions.md). */
export interface ExtensionImplementationSpec {
  readonly http: { readonly url: SecretSpec; readonly secret: SecretSpec; readonly timeoutMs?: number };
}
