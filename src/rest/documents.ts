/**
 * The fixed GraphQL documents the REST facade executes in-process. Inputs travel only as variables, never
 * by string interpolation.
 */
export const LIST_TOOLS = /* GraphQL */ `
  query RestListTools($view: String, $profile: String) {
    document: toolsDocument(view: $view, profile: $profile) { appliedView body etag }
  }
`;

export const GET_TOOL = /* GraphQL */ `
  query RestGetTool($toolId: String!, $view: String, $profile: String) {
    document: toolDocument(toolId: $toolId, view: $view, profile: $profile) { appliedView body etag }
  }
`;

export const CAPABILITIES = /* GraphQL */ `
  query RestCapabilities {
    capabilities { hostVersion toolCatalog { sources compactView sessionLifecycle calls profiles } }
  }
`;

/** Issue 14: a call, started in-process so that its live handle (JSON or SSE answer) reaches the facade. */
export const START_CALL = /* GraphQL */ `
  mutation RestStartCall($toolId: String!, $arguments: JSON, $idempotencyKey: String, $profile: String) {
    call: startToolCall(toolId: $toolId, arguments: $arguments, idempotencyKey: $idempotencyKey, profile: $profile) { callId replayed handle }
  }
`;

/** Issue 14: a past call of the caller (null for anyone else's). */
export const GET_CALL = /* GraphQL */ `
  query RestGetCall($toolId: String!, $callId: String!) {
    call: toolCall(toolId: $toolId, callId: $callId) {
      callId toolId status outcome startedAt finishedAt durationMs
      result { isError content structuredContent }
      error { code message details }
    }
  }
`;

/** Issue 18: GET /tools?q= and POST /tools/search (the caller's visible tools in relevance order). */
export const SEARCH_TOOLS = /* GraphQL */ `
  query RestSearchTools($query: String!, $limit: Int, $view: String, $profile: String) {
    document: searchToolsDocument(query: $query, limit: $limit, view: $view, profile: $profile) { appliedView body etag }
  }
`;
