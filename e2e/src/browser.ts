import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core: no browser download (it fails on these
 * machines). `CHROMIUM_PATH` overrides the path; `.ci/run` installs the `chromium` package
 * when it is missing.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where a failing journey leaves its screenshot (ignored by git). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));

/**
 * Flags for a closed network: without the background-networking ones Chromium keeps trying
 * Google's hosts at every start. `--no-sandbox` because CI runs as root.
 */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/**
 * Runs one journey step on a page and, when it fails, saves a full-page screenshot under
 * e2e/artifacts/<name>.png before rethrowing.
 */
export async function journey<T>(page: Page, name: string, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (err) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    if (err instanceof Error) err.message += `\n(screenshot: ${file})`;
    throw err;
  }
}

/** The narrow width every page must fit without scrolling sideways (a common phone). */
export const PHONE = { width: 390, height: 844 } as const;

/**
 * What every page a journey reaches must pass:
 * - axe-core (WCAG 2.x A and AA, 2.2 included), violations listed when it fails;
 * - no horizontal overflow at {@link PHONE} width: the page is laid out again at 390 px, the
 *   document's scroll width compared with its viewport (and the elements wider than it named),
 *   then the viewport put back;
 * - nothing marked `hidden` is displayed (a stylesheet's `display` on a button or a class wins
 *   over the browser's own rule for `[hidden]` unless the pages' CSS restores it).
 */
export async function expectSoundPage(page: Page, opts: { include?: string; label?: string } = {}): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
  if (opts.include) builder = builder.include(opts.include);
  const { violations } = await builder.analyze();
  const summary = violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(' ')).join('\n  ')}`);
  expect(summary, `axe violations${opts.label ? ` on ${opts.label}` : ''}`).toEqual([]);
  const shownHidden = await page.evaluate(() =>
    Array.from(document.querySelectorAll('[hidden]'))
      .filter((el) => getComputedStyle(el).display !== 'none')
      .map((el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`),
  );
  expect(shownHidden, `elements marked hidden but displayed${opts.label ? ` on ${opts.label}` : ''}`).toEqual([]);
  const size = page.viewportSize();
  await page.setViewportSize(PHONE);
  try {
    const overflow = await page.evaluate(() => {
      const root = document.documentElement;
      if (root.scrollWidth <= root.clientWidth) return null;
      const wide = Array.from(document.querySelectorAll('body *')).filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1).slice(0, 5);
      return { scrollWidth: root.scrollWidth, culprits: wide.map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`) };
    });
    expect(overflow, `horizontal overflow at ${PHONE.width} px${opts.label ? ` on ${opts.label}` : ''}`).toBeNull();
  } finally {
    if (size) await page.setViewportSize(size);
  }
}

/** How a journey's person differs from the default. */
export interface PersonOptions {
  /** Requests of the page's scripts whose failure the journey causes on purpose (a service stopped, a ticket resold): their "Failed to load resource" is no fault. */
  expectedFailures?: RegExp;
  /** Pixels per CSS pixel (a phone's 2 or 3). */
  deviceScaleFactor?: number;
}

/**
 * A fresh browser profile (its own cookies), as a second person on another computer, kept in
 * `contexts` for closing. Content-Security-Policy violations and console errors of its pages
 * go to `sinks` (a page answered with a 4xx on purpose logs "Failed to load resource" for
 * itself: that one is the page's status, not a fault, and is let through).
 */
async function newPerson(browser: Browser, contexts: BrowserContext[], sinks: { csp: string[]; errors: string[] }, opts: PersonOptions): Promise<Page> {
  const context = await browser.newContext(opts.deviceScaleFactor ? { deviceScaleFactor: opts.deviceScaleFactor } : {});
  context.setDefaultTimeout(15_000);
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/content security policy/i.test(m.text())) sinks.csp.push(`${page.url()}: ${m.text()}`);
    else if (m.type() === 'error' && !(m.text().startsWith('Failed to load resource') && (m.location().url === page.url() || opts.expectedFailures?.test(m.location().url)))) sinks.errors.push(`${page.url()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (err) => sinks.errors.push(`${page.url()}: uncaught ${err.message}`));
  return page;
}

/**
 * The browser of a journeys file: Chromium launched before its tests and closed after them,
 * each `person()` a fresh profile; after every test, no page may have reported a
 * Content-Security-Policy violation or a console error (a missing favicon included): every
 * page (demo, service, widgets) works under its strict policy. Call at the top of the file.
 */
export function journeyBrowser(): { person: (opts?: PersonOptions) => Promise<Page> } {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const sinks = { csp: [] as string[], errors: [] as string[] };
  beforeAll(async () => {
    browser = await launch();
  });
  afterEach(() => {
    expect(sinks.csp.splice(0)).toEqual([]);
    expect(sinks.errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
  });
  return { person: (opts = {}) => newPerson(browser!, contexts, sinks, opts) };
}
