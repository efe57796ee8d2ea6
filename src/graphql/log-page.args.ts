import { MAX_LOG_OFFSET, MAX_LOG_PAGE } from '../persistence/log-page';

/** The admin logs' paging arguments, described from the rule itself (persistence/log-page.ts). */
export const FIRST_ARG_DESCRIPTION = `Rows to return: 1 to ${MAX_LOG_PAGE} (a larger value returns ${MAX_LOG_PAGE}).`;
export const OFFSET_ARG_DESCRIPTION = `Rows to skip, at most ${MAX_LOG_OFFSET} (more answers BAD_USER_INPUT: narrow the filter to reach older rows).`;
