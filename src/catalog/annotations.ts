import type { Classification, ToolAnnotations } from './descriptor';

/**
 * RFC 0204 projection onto MCP ToolAnnotations (TC-ANN-1..5). All four hints are always written
 * explicitly: MCP defaults (destructiveHint and openWorldHint default to true upstream) are never relied on.
 * Derived only from the host's own classification, never from upstream hints (TC-DESC-5).
 */
export function deriveAnnotations(c: Classification): ToolAnnotations {
  return {
    readOnlyHint: c.safetyTier === 'pure' || c.safetyTier === 'read', // TC-ANN-2
    destructiveHint: c.safetyTier === 'write' || c.safetyTier === 'exec', // TC-ANN-3
    idempotentHint: c.replayPolicy === 'deterministic' || c.replayPolicy === 'idempotent', // TC-ANN-4
    openWorldHint: c.egress !== 'none', // TC-ANN-5
  };
}
