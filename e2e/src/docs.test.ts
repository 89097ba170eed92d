import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journey, launch, PHONE } from './browser.js';
import { startStack, type Stack } from './stack.js';

/**
 * A partner developer finds the widgets' guide: from the service's landing page to its page of
 * the API reference (Scalar, under /docs' own CSP), at desktop and phone widths.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack();
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the widgets’ guide in the API reference', () => {
  it.each([
    ['desktop', { width: 1280, height: 900 }],
    ['phone', PHONE],
  ])('is one link from the landing page and shows the script tag and every element (%s)', async (_, viewport) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const blocked: string[] = [];
    // What /docs' policy refuses, beside zod's known eval probe (docs.routes.ts: it falls back to plain code).
    page.on('console', (m) => {
      if (m.type() === 'error' && !/unsafe-eval/.test(m.text())) blocked.push(m.text());
    });
    try {
      await journey(page, `docs-widgets-${viewport.width}`, async () => {
        await page.goto(stack.serviceUrl);
        await page.getByRole('link', { name: 'Put resale on your pages: the widgets guide' }).click();
        await page.waitForURL(/\/docs#description\/widgets$/);
        const scriptTag = page.getByText(`${stack.serviceUrl}/widgets/v1/resale.js`).first();
        await scriptTag.waitFor({ timeout: 30_000 });
        await expect.poll(() => scriptTag.isVisible()).toBe(true);
        for (const heading of ['One script tag', "Allow your site's origin first", 'Content-Security-Policy', 'Theming', 'resale-access-layer', 'resale-seat-map', 'resale-sell-actions']) {
          expect(await page.getByRole('heading', { name: heading, exact: true }).count(), heading).toBeGreaterThan(0);
        }
      });
      expect(blocked).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
