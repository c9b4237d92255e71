import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { validReadinessBody } from '../support/runtime';
import { BASE, buy, expectAccessible, payOnHostedPage, screenshot, SCREENSHOTS, STRIPE, test } from './helpers';

// Purchases in a real browser on the local rails: the pricing page posts to our checkout route, the
// Stripe fake's hosted page "pays" and delivers signed webhooks to `next start`, the browser lands on the
// success page. Every page is screenshotted, checked with axe, and must log no console error.

async function accountCallsLeft(page: Page, key: string) {
  // Signed out, the account page has one key field: signing in. Signed in, the billing lookup is below, keyless.
  await page.context().clearCookies();
  await page.goto(`${BASE()}/account`);
  await expect(page.locator('input[type="password"]')).toHaveCount(1);
  await page.locator('#account-signin-key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('account-session-calls')).toBeVisible();
  // Signed in, the billing lookup asks for no key: it is the session's.
  await expect(page.locator('#account-key')).toHaveCount(0);
  await page.getByRole('button', { name: 'Show subscription and billing' }).click();
  return page.getByTestId('account-calls-left');
}

test('home and pricing render, accessibly', async ({ page, consoleErrors: _ }) => {
  await page.goto(`${BASE()}/`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'An example report' })).toBeVisible();
  await screenshot(page, 'home');
  await expectAccessible(page, 'home');

  await page.goto(`${BASE()}/pricing`);
  for (const id of ['bundle-25', 'bundle-100', 'subscription']) await expect(page.locator(`#${id}`)).toBeVisible();
  await screenshot(page, 'pricing');
  await expectAccessible(page, 'pricing');

  // A phone-sized viewport: plans stack and nothing overflows sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, 'pricing-mobile');
  await expectAccessible(page, 'pricing-mobile');
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`${BASE()}/docs/api`);
  await expect(page.getByRole('heading', { name: 'REST reference', level: 1 })).toBeVisible();
  await expect(page.locator('#op-createAgentReadinessAssessment')).toBeVisible();
  await expect(page.locator('#problem-credits-exhausted')).toBeVisible();
  await screenshot(page, 'docs');
  await page.locator('#api').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-api.png') });
  await expectAccessible(page, 'docs');
});

test('bundle-25: key revealed once, spent on a readiness check, account shows 24', async ({ page, request, consoleErrors: _ }) => {
  const { key, sessionId } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await expect(page.getByText('It holds 25 calls', { exact: false })).toBeVisible();
  await expect(page.getByLabel('curl example', { exact: true })).toContainText(`${BASE()}/api/agent/readiness`);
  await screenshot(page, 'success');
  await expectAccessible(page, 'success');

  const res = await request.post(`${BASE()}/api/agent/readiness`, {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': `pw-${sessionId.slice(-12)}` },
    data: validReadinessBody(),
  });
  expect(res.status()).toBe(200);
  expect((await res.json()).creditsUsage).toMatch(/^cu_/);

  await expect(await accountCallsLeft(page, key)).toHaveText('24');
  // The signed-in page's grants (the session's key) and the lookup's say the same.
  const grants = page.getByTestId('grants');
  await expect(grants).toHaveCount(2);
  for (const table of await grants.all()) await expect(table).toContainText('24 of 25');
  expect(page.url()).toBe(`${BASE()}/account`);
  await screenshot(page, 'account');
  await expectAccessible(page, 'account');

  // Back to the success page: the key is gone for good.
  await page.goto(`${BASE()}/purchase/success?session_id=${sessionId}`);
  await expect(page.getByRole('heading', { name: 'This key was already shown' })).toBeVisible();
  expect(await page.content()).not.toContain(key);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'This key was already shown' })).toBeVisible();
  await screenshot(page, 'success-reloaded');
});

test('subscription: 50 calls, renewal resets to 50, billing portal can cancel', async ({ page, request, consoleErrors: _ }) => {
  const { key, sessionId } = await buy(page, 'subscription', /Subscribe monthly/);
  const spend = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await request.post(`${BASE()}/api/agent/readiness`, {
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': `pw-sub-${i}-${sessionId.slice(-10)}` },
        data: validReadinessBody(),
      });
      expect(res.status()).toBe(200);
    }
  };
  await spend(3);
  await expect(await accountCallsLeft(page, key)).toHaveText('47');
  await expect(page.getByTestId('subscription-state')).toContainText('Active');

  // Simulate the next month being paid: the fake emits a signed invoice.paid for the next period.
  const auth = { authorization: `Bearer ${process.env.PW_STRIPE_KEY}` };
  const session = await (await request.get(`${STRIPE()}/v1/checkout/sessions/${sessionId}`, { headers: auth })).json();
  expect(session.subscription).toMatch(/^sub_/);
  const renewed = await request.post(`${STRIPE()}/v1/test_helpers/subscriptions/${session.subscription}/renew`, { headers: auth });
  expect(renewed.status()).toBe(200);
  await expect(await accountCallsLeft(page, key)).toHaveText('50');

  await page.getByRole('button', { name: 'Manage billing and subscription' }).click();
  await expect(page).toHaveURL(new RegExp(`^${STRIPE()}/portal/`));
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await expect(page.getByText(`${session.subscription}: canceled`)).toBeVisible();
  await expect(await accountCallsLeft(page, key)).toHaveText('50');
  await expect(page.getByTestId('subscription-state')).toContainText('Ended');
});

test('a top-up adds to an existing key, and a bad key is refused in the form', async ({ page, consoleErrors }) => {
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);

  await page.goto(`${BASE()}/pricing#top-up`);
  const keyField = page.getByLabel(/Credits key/);
  await keyField.fill(`pac_live_${'Z'.repeat(40)}`);
  await page.getByRole('button', { name: 'Top up this key' }).click();
  await expect(page.locator('#topup-error')).toContainText('not valid');
  // The refused key's 401 is logged by Chromium as a failed resource: the expected answer, not a page error.
  const expected = consoleErrors.filter((e) => /\/pricing#top-up: Failed to load resource: .* 401 /.test(e));
  expect(expected).toHaveLength(1);
  consoleErrors.splice(consoleErrors.indexOf(expected[0]), 1);

  await keyField.fill(key);
  await page.getByRole('radio', { name: /100 calls/ }).check();
  await page.getByRole('button', { name: 'Top up this key' }).click();
  await payOnHostedPage(page);
  expect(page.url()).not.toContain(key);
  await expect(page.getByTestId('calls-left')).toHaveText('125');
  await expect(page.getByText(`pac_live_…${key.slice(-4)}`)).toBeVisible();
  await expect(await accountCallsLeft(page, key)).toHaveText('125');

  // Signed in (accountCallsLeft signed in), the top-up is for the session's key: no key is asked for.
  await page.goto(`${BASE()}/pricing#top-up`);
  await expect(page.getByRole('heading', { name: 'Top up your key' })).toBeVisible();
  await expect(page.locator('#topup-key')).toHaveCount(0);
  await expect(page.locator('#topup-help')).toContainText(`pac_live_…${key.slice(-4)}`);
  await page.getByRole('button', { name: 'Top up my key' }).click();
  await payOnHostedPage(page);
  await expect(page.getByTestId('calls-left')).toHaveText('150');
});

test('the success page signs the buyer in with the new key and opens the checks', async ({ page, consoleErrors: _ }) => {
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.getByRole('button', { name: 'Sign in with this key and run a check' }).click();
  await expect(page).toHaveURL(`${BASE()}/check`);
  await page.goto(`${BASE()}/account`);
  await expect(page.getByTestId('account-session-calls')).toHaveText('25');
  await expect(page.getByTestId('key-prefix')).toHaveText(`pac_live_…${key.slice(-4)}`);
});
