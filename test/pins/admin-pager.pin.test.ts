/**
 * The admin console cannot import the server's paging rule (a separate browser build), so it spells the bound itself:
 * this pin fails when the two differ, before the console's "Next page" leads to a BAD_USER_INPUT.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MAX_LOG_OFFSET } from '../../src/persistence/log-page';

describe('pin: the admin console pages no deeper than the server allows', () => {
  it('admin/src/ui.tsx MAX_LOG_OFFSET equals src/persistence/log-page.ts MAX_LOG_OFFSET', () => {
    const ui = readFileSync(join(__dirname, '..', '..', '..', 'admin', 'src', 'ui.tsx'), 'utf8');
    const spelled = /^const MAX_LOG_OFFSET = ([\d_]+);/m.exec(ui);
    expect(spelled, 'MAX_LOG_OFFSET in admin/src/ui.tsx').to.not.equal(null);
    expect(Number(spelled![1].replace(/_/g, ''))).to.equal(MAX_LOG_OFFSET);
  });
});
