import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { expectSoundPage } from './browser.js';
import { TEST_KEYS, type Stack } from './stack.js';
import { steps } from './steps.js';

/**
 * What the console's journeys share: signing in with the code from the mailbox, the operator
 * API, the sandbox partner's id.
 *
 * @example const { consoleSignIn, admin, sandboxId } = consoleSteps(() => stack);
 */
export function consoleSteps(stackOf: () => Stack) {
  const { mailbox } = steps(stackOf);

  /** Signs `email` in to the console: the form and the code page (each checked as every page is), the code from the mailbox, the home page. */
  async function consoleSignIn(page: Page, email: string): Promise<void> {
    const stack = stackOf();
    const before = new Set((await mailbox(email)).map((m) => m.id));
    await page.goto(`${stack.serviceUrl}/console`);
    await page.waitForURL(/\/console\/sign-in/);
    await expectSoundPage(page, { label: 'the console sign-in page' });
    await page.getByLabel('Work e-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.waitForURL(/\/console\/sign-in\/code/);
    let code: string | undefined;
    await expect
      .poll(async () => {
        const sent = (await mailbox(email)).find((m) => !before.has(m.id) && m.template === 'consoleCode');
        code = sent ? /\b(\d{6})\b/.exec(sent.text)?.[1] : undefined;
        return code;
      })
      .toBeTruthy();
    await expectSoundPage(page, { label: 'the console code page' });
    await page.getByLabel('Code').fill(code!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.serviceUrl}/console`);
  }

  /** A GET of the operator API with the operator token, its JSON envelope. */
  async function admin(path: string): Promise<any> {
    return await fetch(`${stackOf().serviceUrl}${path}`, { headers: { authorization: `Bearer ${TEST_KEYS.operator}` } }).then((r) => r.json());
  }

  /** The id of the sandbox partner (the demo's). */
  async function sandboxId(): Promise<string> {
    return ((await admin('/admin/v1/partners')).data as { id: string; name: string }[]).find((p) => p.name === 'sandbox')!.id;
  }

  return { consoleSignIn, admin, sandboxId, mailbox };
}
