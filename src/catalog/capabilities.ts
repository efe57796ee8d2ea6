import type { ToolSource } from './descriptor';

/** The capabilities document (GET /capabilities). Derived from configuration, so advertising and behaviour agree. */
export interface Capabilities {
  readonly hostVersion: string;
  readonly toolCatalog: {
    readonly sources: readonly ToolSource[];
    readonly compactView: boolean;
    readonly sessionLifecycle: boolean;
  };
}

export function deriveCapabilities(opts: { hostVersion: string; compactView: boolean; sources: readonly ToolSource[] }): Capabilities {
  return {
    hostVersion: opts.hostVersion,
    toolCatalog: {
      sources: [...opts.sources],
      compactView: opts.compactView,
      // toolcat emits no session events; TC-SESS-1 makes them optional.
      sessionLifecycle: false,
    },
  };
}
