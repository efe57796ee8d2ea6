/**
 * The host-side clause ids of ../shared/spec/clauses.md. coverage.test.ts checks this list against the spec
 * file (when it is beside the checkout) and that each id has a clause() test.
 */
export const HOST_CLAUSES = [
  'TC-CAT-1', 'TC-CAT-2', 'TC-CAT-3', 'TC-CAT-4', 'TC-CAT-5', 'TC-CAT-7',
  'TC-DESC-1', 'TC-DESC-2', 'TC-DESC-3', 'TC-DESC-4', 'TC-DESC-5', 'TC-DESC-6',
  'TC-ANN-1', 'TC-ANN-2', 'TC-ANN-3', 'TC-ANN-4', 'TC-ANN-5',
  'TC-VIEW-1', 'TC-VIEW-2', 'TC-VIEW-3', 'TC-VIEW-4',
  'TC-SESS-1', 'TC-SHAPE-1',
] as const;

/** Consumer-side clauses: they bind clients, not this host; proved for toolcat/client (consumer.conformance.test.ts). */
export const CONSUMER_CLAUSES = ['TC-CAT-6', 'TC-SESS-2'] as const;
