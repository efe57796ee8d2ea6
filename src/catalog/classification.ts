import { CatalogError, CatalogErrorCode } from './catalog.errors';
import {
  type Classification,
  type ToolSource,
  isEgress,
  isReplayPolicy,
  isSafetyTier,
} from './descriptor';

/**
 * TC-DESC-6: an MCP tool the host has not classified is `write`, with the most conservative replay
 * (`non-idempotent`: never retried automatically) and egress (`open`: may reach anything).
 */
export const UNCLASSIFIED_MCP: Classification = Object.freeze({
  safetyTier: 'write',
  replayPolicy: 'non-idempotent',
  egress: 'open',
});

/**
 * The host's classification decision (TC-DESC-5). Inputs are only the source kind and the host's own
 * decision; upstream MCP annotations are not a parameter, so they cannot leak into the result.
 */
export function classify(source: ToolSource, hostDecision: Classification | null | undefined): Classification {
  if (!hostDecision) return UNCLASSIFIED_MCP;
  assertClassificationAllowed(source, hostDecision);
  return { safetyTier: hostDecision.safetyTier, replayPolicy: hostDecision.replayPolicy, egress: hostDecision.egress };
}

/** Validates an untrusted classification triple; TC-DESC-3: `exec` only for host extensions. */
export function assertClassificationAllowed(source: ToolSource, c: { safetyTier: unknown; replayPolicy: unknown; egress: unknown }): asserts c is Classification {
  const problems: string[] = [];
  if (!isSafetyTier(c.safetyTier)) problems.push(`safetyTier must be one of pure, read, write, exec (got ${JSON.stringify(c.safetyTier)})`);
  if (!isReplayPolicy(c.replayPolicy)) problems.push(`replayPolicy must be one of deterministic, idempotent, non-idempotent (got ${JSON.stringify(c.replayPolicy)})`);
  if (!isEgress(c.egress)) problems.push(`egress must be one of none, restricted, open (got ${JSON.stringify(c.egress)})`);
  if (problems.length) throw new CatalogError(CatalogErrorCode.InvalidArgument, problems.join('; '));
  if (c.safetyTier === 'exec' && source !== 'host-extension') {
    throw new CatalogError(
      CatalogErrorCode.InvalidArgument,
      `safetyTier "exec" is reserved for host-extension tools; this tool's source is "${source}" (TC-DESC-3)`,
    );
  }
}
