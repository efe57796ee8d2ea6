/**
 * Who owns a resource (issue 19): the config file (`config`) or the API (`api`: GraphQL and the CLI's commands).
 * Host extensions and sources record it as their origin (`config` | `graphql`); a classification as who decided it
 * (`config` | `principal:<id>` | `operator`). The rule applying a file follows is in config-apply.service.ts.
 */
export type Owner = 'config' | 'api';
export const ownerOfOrigin = (origin: string): Owner => (origin === 'config' ? 'config' : 'api');
export const ownerOfDecision = (decidedBy: string): Owner => (decidedBy === 'config' ? 'config' : 'api');
