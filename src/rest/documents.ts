/**
 * The fixed GraphQL documents the REST facade executes in-process. Inputs travel only as variables, never
 * by string interpolation.
 */
export const LIST_TOOLS = /* GraphQL */ `
  query RestListTools($view: String) {
    document: toolsDocument(view: $view) { appliedView body etag }
  }
`;

export const GET_TOOL = /* GraphQL */ `
  query RestGetTool($toolId: String!, $view: String) {
    document: toolDocument(toolId: $toolId, view: $view) { appliedView body etag }
  }
`;

export const CAPABILITIES = /* GraphQL */ `
  query RestCapabilities {
    capabilities { hostVersion toolCatalog { sources compactView sessionLifecycle } }
  }
`;
