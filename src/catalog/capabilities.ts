import type { ToolSource } from './descriptor';
import { PROFILE_NAMES, type ProfileName } from './compact';

/** The capabilities document (GET /capabilities). Derived from configuration, so advertising and behaviour agree. */
export interface Capabilities {
  readonly hostVersion: string;
  readonly toolCatalog: {
    readonly sources: readonly ToolSource[];
    readonly compactView: boolean;
    readonly sessionLifecycle: boolean;
    /** POST /tools/{toolId}/calls (issue 14). */
    readonly calls: boolean;
    /** issue 16: the provider profiles of the compact view (`?view=compact&profile=<name>`); empty without compactView */
    readonly profiles: readonly ProfileName[];
  };
}

export function deriveCapabilities(opts: { hostVersion: string; compactView: boolean; sources: readonly ToolSource[] }): Capabilities {
  return {
    hostVersion: opts.hostVersion,
    toolCatalog: {
      sources: [...opts.sources],
      compactView: opts.compactView,
      // Calls are made through toolcat (issue 14); a call answered as an event stream is bracketed by the
      // content-free tool.session.opened and tool.session.closed (TC-SESS-1).
      sessionLifecycle: true,
      calls: true,
      profiles: opts.compactView ? [...PROFILE_NAMES] : [],
    },
  };
}
