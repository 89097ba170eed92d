import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';

/**
 * The console's risk tab in Chromium: an evaluation made through the API with the sandbox's
 * private key, found by its transaction, opened with its signals, and feedback recorded on it
 * by an operator (read back in the audit log and in the next evaluation of the same buyer);
 * each page checked (axe, no overflow at 390 px, no CSP violation nor console error).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { consoleSignIn, admin, sandboxId } = consoleSteps(() => stack);
const { person } = journeyBrowser();

/** POST /v1/risk/evaluate with the sandbox's private key: a buyer with a disposable e-mail domain. */
async function evaluate(transactionId: string): Promise<{ overall_risk: string; detailed: { transaction_risk: { signals: { name: string; result: string }[] } } }> {
  const res = await fetch(`${stack.serviceUrl}/v1/risk/evaluate`, {
    method: 'POST',
    headers: { authorization: TEST_KEYS.private, 'content-type': 'application/json' },
    body: JSON.stringify({
      customer: { id: 'risk-buyer-1', email: { address: 'risk-buyer@mailinator.com', verified: true }, address: { country: 'ES' } },
      device: { userId: 'risk-buyer-1', sessionId: 'e2e' },
      transaction: { id: transactionId, amount: 80, currency: 'EUR', action: 'resale_purchase' },
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Awaited<ReturnType<typeof evaluate>> }).data;
}

describe('the console’s risk tab', () => {
  it('(R1) an operator opens an evaluation made through the API and records a chargeback on it', async () => {
    const partnerId = await sandboxId();
    const transactionId = `e2e-risk-${Date.now()}`;
    expect((await evaluate(transactionId)).overall_risk).toBe('high');

    const page = await person();
    await journey(page, 'console-risk', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await page.getByRole('link', { name: 'Risk', exact: true }).click();
      await page.waitForURL(/\/risk$/);
      await expectSoundPage(page, { label: 'the risk evaluations' });
      await page.getByLabel('Transaction or checkout id').fill(transactionId);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/transaction=/);
      await expectSoundPage(page, { label: 'the evaluations of one transaction' });
      await page.getByRole('link', { name: /^rsk_/ }).click();
      await page.waitForURL(/\/risk\/rsk_[0-9a-z]+$/);
      const evaluationId = /\/risk\/(rsk_[0-9a-z]+)$/.exec(page.url())![1]!;
      await expectSoundPage(page, { label: 'an evaluation' });
      const main = page.locator('main');
      expect(await main.innerText()).toContain('A disposable e-mail domain.');
      expect(await main.innerText()).toContain(`Transaction ${transactionId} is no checkout of this partner`);

      await expect.poll(() => page.getByLabel('Buyer on the partner’s platform (id or e-mail)').inputValue()).toBe('risk-buyer-1');
      await page.getByRole('radio', { name: 'chargeback' }).check();
      await page.getByRole('button', { name: 'Record feedback' }).click();
      await page.waitForURL(/saved=feedback/);
      await expect.poll(() => page.locator('[role=status]').first().innerText()).toContain('Feedback recorded.');
      await expectSoundPage(page, { label: 'the evaluation with its feedback' });

      // Audited, and recorded by the API's service: the buyer's next evaluation sees it.
      const audit = await admin(`/admin/v1/audit?partnerId=${partnerId}&action=risk.feedback`);
      expect(audit.data.items[0]).toMatchObject({ action: 'risk.feedback', target: evaluationId, after: { transactionId, userId: 'risk-buyer-1', result: 'chargeback' } });
      const next = await evaluate(`${transactionId}-next`);
      expect(next.detailed.transaction_risk.signals.find((s) => s.name === 'previousFeedback')?.result).toBe('high');
    });
  });
});
