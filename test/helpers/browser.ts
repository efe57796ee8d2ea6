import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

/** Debian's chromium package (`.ci/run` installs it with apt when it is missing). */
const CHROMIUM = '/usr/bin/chromium';
export const chromiumPresent = (): boolean => existsSync(CHROMIUM);

/** Screenshots and figures of the browser tests (gitignored). */
export const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts', 'admin');

/**
 * Headless Chromium through playwright-core (which downloads nothing): the system binary, a fresh profile in a
 * temp folder, and no background traffic of its own, so every request a test sees comes from the page.
 */
export async function launchChromium(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'toolcat-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1400, height: 1000 },
  });
  return {
    browser: context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
export type { BrowserContext, Page };

export function saveScreenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; html?: string }> }

/**
 * axe-core run inside the page. The script is evaluated through the DevTools protocol, which the page's CSP does not
 * govern (a <script> tag would be refused, as it should be). Returns the serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<{ violations: AxeViolation[] }>("axe.run(document, { resultTypes: ['violations'] })");
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, html: n.html?.slice(0, 300) })) }));
}
