import fs from 'node:fs';
import { expect } from '@playwright/test';
import { validReadinessBody } from '../support/runtime';
import { BASE, buy, reviewBothWidths, screenshot, test } from './helpers';

// A key's reports as its owner uses them in Chromium against `next start`: the history with verdicts in words
// and a filter by check, the calls spent with their CSV, a report compared with the previous check of its
// workflow, run again after a confirmation (one call, once), shared by a link that shows nothing of the key,
// and the link revoked. Every page is screenshotted at 1280 and 390 and must pass axe with no violation.

const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;

test('history, usage CSV, compare, re-run, share and revoke', async ({ page, browser, request, consoleErrors: _ }) => {
  test.setTimeout(300_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  const auth = { authorization: `Bearer ${key}` };
  const callsLeft = async () => ((await (await request.get(`${BASE()}/api/agent/credits`, { headers: auth })).json()) as { callsLeft: number }).callsLeft;
  const spent: string[] = [];
  const paid = async (path: string, data: unknown, idem: string) => {
    const res = await request.post(`${BASE()}${path}`, { headers: { ...auth, 'idempotency-key': idem }, data });
    expect(res.status()).toBe(200);
    spent.push(((await res.json()) as { creditsUsage: string }).creditsUsage);
  };
  // Two runs of one workflow (authentication implemented in the second) and one visibility check.
  await paid('/api/agent/readiness', validReadinessBody(), 'pw-reports-1');
  await paid('/api/agent/ai-visibility', { url: SHOP() }, 'pw-reports-2');
  const capabilities = { ...validReadinessBody().capabilities, user_authentication: { status: 'implemented', evidence: ['OAuth'] } };
  await paid('/api/agent/readiness', validReadinessBody({ capabilities }), 'pw-reports-3');
  expect(await callsLeft()).toBe(22);

  // Signed out: one key field.
  await page.goto(`${BASE()}/account`);
  await expect(page.locator('input[type="password"]')).toHaveCount(1);
  await page.locator('#account-signin-key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const rows = page.getByTestId('history').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  const keyPrefix = (await page.getByTestId('key-prefix').textContent())!;
  // Labels from the registry, verdicts in words, the target links to the report.
  await expect(rows.nth(0)).toContainText('Payment Readiness');
  await expect(rows.nth(0).getByTestId('verdict')).toHaveText('Not ready');
  await expect(rows.nth(1)).toContainText('AI Visibility');
  await expect(rows.nth(1).getByRole('link', { name: SHOP() })).toBeVisible();
  await expect(page.getByTestId('grants')).toContainText('22 of 25');

  // The calls spent, newest first, and the same rows as CSV.
  const usage = page.getByTestId('usage').locator('tbody tr');
  await expect(usage).toHaveCount(3);
  const download = page.waitForEvent('download');
  await page.getByTestId('usage-csv').click();
  const csv = fs.readFileSync((await (await download).path())!, 'utf8').split('\n');
  expect(csv[0]).toBe('time,operation,usage,refunded,refunded_at');
  expect(csv.slice(1).map((line) => line.split(',').slice(1, 4))).toEqual([
    ['createAgentReadinessAssessment', spent[2], 'no'], ['createAiVisibilityCheck', spent[1], 'no'], ['createAgentReadinessAssessment', spent[0], 'no'],
  ]);
  // The page names each check by its label.
  await expect(usage.nth(1)).toContainText('AI Visibility');
  await reviewBothWidths(page, 'account-history');

  // Filter by check.
  await page.getByLabel('Check', { exact: true }).selectOption({ label: 'Payment Readiness' });
  await page.getByRole('button', { name: 'Show reports' }).click();
  await expect(page).toHaveURL(/\?check=readiness/);
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) await expect(row).toContainText('Payment Readiness');
  await screenshot(page, 'account-history-filtered');

  // The newer readiness report, compared with the previous one of its workflow.
  await rows.nth(0).getByRole('link').click();
  await expect(page).toHaveURL(/\/reports\/rep_/);
  const firstReport = page.url();
  await page.getByText('Compare with the previous check of this workflow').click();
  await expect(page.getByTestId('compare-score')).toContainText('Score 57 → 65 (+8 points)');
  await expect(page.getByTestId('compare-counts')).toHaveText('1 fixed · 1 new · 7 unchanged');
  // The finding by its title and severity in words, not its id.
  await expect(page.locator('[data-status="fixed"]')).toHaveText(/^Fixed Low User authentication is missing\. Human buyers need /);
  await expect(page.getByTestId('compare-panel')).not.toContainText('user_authentication');
  await reviewBothWidths(page, 'report-compare');

  // Re-run: a confirmation first; cancelling spends nothing; confirming spends one call and opens the new report.
  await page.getByRole('button', { name: /^Run again/ }).click();
  await expect(page.getByText('Uses one call.')).toBeVisible();
  await screenshot(page, 'report-rerun-confirm');
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(await callsLeft()).toBe(22);
  await page.getByRole('button', { name: /^Run again/ }).click();
  await page.getByRole('button', { name: 'Run it (1 call)' }).click();
  await expect(page).not.toHaveURL(firstReport);
  await expect(page).toHaveURL(/\/reports\/rep_/);
  expect(await callsLeft()).toBe(21);
  await page.getByText('Compare with the previous check of this workflow').click();
  await expect(page.getByTestId('compare-score')).toContainText('Score 65 → 65 (no change)');
  await expect(page.getByTestId('compare-counts')).toHaveText('0 fixed · 0 new · 8 unchanged');

  // Share: a link shown once; a stranger (no cookies) sees the report and nothing of the key or account.
  await page.getByRole('button', { name: 'Make a public link' }).click();
  const shareUrl = (await page.getByTestId('share-url').textContent())!;
  expect(shareUrl).toMatch(new RegExp(`^${BASE()}/r/shr_[A-Za-z0-9_-]{32}$`));
  expect(shareUrl).not.toContain(page.url().split('/reports/')[1]);
  await reviewBothWidths(page, 'report-shared-owner');
  const stranger = await browser.newContext();
  const visitor = await stranger.newPage();
  const opened = await visitor.goto(shareUrl);
  expect(opened!.status()).toBe(200);
  expect(opened!.headers()['x-robots-tag']).toBe('noindex, nofollow');
  await expect(visitor.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/);
  await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('Shared report');
  await expect(visitor.getByTestId('report-verdict')).toHaveText('Not ready');
  const html = await visitor.content();
  for (const secret of [key, keyPrefix, ...spent, 'calls left', 'Run again', 'Share this report', 'Compare with']) expect(html).not.toContain(secret);
  await reviewBothWidths(visitor, 'shared-report');

  // Revoke: the link answers 404 from then on.
  await page.getByRole('button', { name: 'Stop sharing' }).click();
  await expect(page.getByTestId('share-state')).toContainText('Only you can see this report');
  const gone = await visitor.goto(shareUrl);
  expect(gone!.status()).toBe(404);
  await expect(visitor.getByRole('heading', { level: 1 })).toHaveText('Link not found');
  await screenshot(visitor, 'shared-report-revoked');
  await stranger.close();
});
