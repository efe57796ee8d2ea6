/**
 * Profile `anthropic`: the Messages API's `tools[].input_schema`. Sources:
 *   - https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools (a tool's `name` "must match the
 *     regex ^[a-zA-Z0-9_-]{1,64}$"; `input_schema` is a JSON Schema object describing the tool's parameters)
 *   - the API's Tool schema (https://schemas.apis.io/schemas/claude/claude-tool/): `input_schema.type` is the
 *     const "object"
 *   - the failures collected in shared/design/compact-view.md §1: `oneOf`/`allOf`/`anyOf` at the top level answer
 *     400 (claude-code#4886, #45106), and Claude Code drops a server's tools when one root is not an object
 *     (claude-code#88049).
 * The neutral view already meets every rule (TC-VIEW-3 bans the composition keywords at any depth), so this
 * profile rewrites nothing; it exists so that the checker, the function name and `/capabilities` say so.
 */
import type { NodeRule, ProfileTable } from './rule-table';

const DEFINE_TOOLS_DOC = 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools';

const rootObject: NodeRule = {
  id: 'anthropic.root-object',
  source: 'https://schemas.apis.io/schemas/claude/claude-tool/',
  check: (n, at) => (at.isRoot && n.type !== 'object' ? 'input_schema.type must be "object"' : undefined),
};

const rootComposition: NodeRule = {
  id: 'anthropic.no-root-composition',
  source: DEFINE_TOOLS_DOC,
  check: (n, at) => {
    if (!at.isRoot) return undefined;
    const composed = ['oneOf', 'allOf', 'anyOf'].filter((k) => n[k] !== undefined);
    return composed.length > 0 ? `no ${composed.join(', ')} at the top level of input_schema` : undefined;
  },
};

export const ANTHROPIC: ProfileTable = {
  name: 'anthropic',
  functionName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, source: DEFINE_TOOLS_DOC },
  nodeRules: [rootObject, rootComposition],
};
