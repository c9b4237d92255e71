import { expect, type Locator, type Page } from '@playwright/test';
import { REFERENCES } from '@/lib/checks/readiness/references';
import { BASE, buy, reviewBothWidths, test } from './helpers';

// The readiness report as a buyer reads it, on /check right after the paid call and on its permanent page: the
// plan first, then the hazards, then the findings with their verify commands (copyable) and their sources
// as links to the one reference table's addresses, the production delta, the capability table last; in
// words, accessible, and no sideways scroll on a phone.

const REFERENCE_URLS = new Set<string>(Object.values(REFERENCES).map((r) => r.url));

interface StoredFinding {
  id: string;
  capability: string;
  verify: Array<{ how: string; expect: string }>;
  references: Array<{ title: string; url: string }>;
}

/** The top edge of each locator's first match, in document order of the page. */
async function tops(...locators: Locator[]): Promise<number[]> {
  return Promise.all(locators.map(async (l) => (await l.first().boundingBox())!.y));
}

/** Everything the report view owes a readiness report, checked against the stored body it renders. */
async function expectReadinessReport(page: Page, findings: StoredFinding[]) {
  const report = page.getByTestId('report');
  const plan = report.getByTestId('readiness-plan');
  const hazards = report.getByTestId('readiness-hazards');
  const cards = report.getByTestId('readiness-finding');
  const production = report.getByTestId('readiness-production');
  const capabilities = report.getByRole('table');

  // Plan → hazards → findings → production delta → capabilities.
  const [p, h, f, d, c] = await tops(plan, hazards, cards, production, capabilities);
  expect(p).toBeLessThan(h);
  expect(h).toBeLessThan(f);
  expect(f).toBeLessThan(d);
  expect(d).toBeLessThan(c);

  // Phases in words, never their ids.
  await expect(plan.getByRole('heading', { name: /^Before the first payment/ })).toBeVisible();
  await expect(report).not.toContainText('before-first-payment');
  await expect(report).not.toContainText('before-production');
  await expect(production).toContainText('Verdict in production');

  await expect(cards).toHaveCount(findings.length);
  // Folded: open each to read what it owes.
  for (const summary of await cards.locator('summary').all()) await summary.click();
  let commands = 0;
  for (const [i, finding] of findings.entries()) {
    const card = cards.nth(i);
    // Each step of the plan links to its finding.
    await expect(plan.locator(`a[href="#${await card.locator('details').getAttribute('id')}"]`)).toHaveCount(1);
    // Sources: one link per reference, its address the reference table's.
    const links = card.getByRole('list').filter({ has: page.getByRole('link') }).getByRole('link');
    expect(await links.evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual(
      finding.references.map((r) => [r.title, r.url]),
    );
    for (const r of finding.references) expect(REFERENCE_URLS.has(r.url), r.url).toBe(true);
    // Verify: every step's expectation is shown; commands in <code>.
    for (const v of finding.verify) await expect(card).toContainText(v.expect);
    const shown = await card.locator('.rd-command code').allTextContents();
    commands += shown.length;
    for (const how of shown) expect(finding.verify.map((v) => v.how)).toContain(how);
  }
  expect(commands).toBeGreaterThan(0);
}

test('readiness report: plan, hazards, findings with verify commands and sources, on /check and its permanent page', async ({ page, request, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await page.getByLabel(/^Credits key/).first().fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('calls-left')).toHaveText('25');

  // A sandbox workflow with a mix of statuses: idempotency partial while the challenge is in place (a hazard),
  // webhooks verified by statement only, reconciliation missing.
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await page.locator('#readiness-targetEnvironment').selectOption('sandbox');
  await page.locator('#readiness-payment_challenge_and_receipt-evidence').fill('tests/payments/challenge.test.ts\nhttps://api.example.com/openapi.json');
  await page.locator('#readiness-webhook_verification-status').selectOption('implemented');
  await page.locator('#readiness-webhook_verification-evidence').fill('We verify Stripe signatures');
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  const report = page.getByTestId('report');
  await expect(report.getByTestId('readiness-plan')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('calls-left')).toHaveText('24');

  const permalink = page.getByRole('link', { name: 'permanent link to this report' });
  const reportPath = (await permalink.getAttribute('href'))!;
  const stored = await request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } });
  expect(stored.status()).toBe(200);
  const body = (await stored.json()) as { assessment: { summary: string; findings: StoredFinding[]; workflow: { targetEnvironment: string } } };
  expect(body.assessment.workflow.targetEnvironment).toBe('sandbox');
  await expect(report.getByTestId('report-summary')).toHaveText(body.assessment.summary);
  await expectReadinessReport(page, body.assessment.findings);

  // Evidence as classified, in words.
  const challenge = report.getByTestId('readiness-finding').filter({ hasText: /Payment challenge and receipt\s+\w+\s+· declared/ });
  const webhook = report.getByTestId('readiness-finding').filter({ hasText: /Webhook verification\s+\w+\s+· declared implemented/ });
  await expect(webhook).toContainText('Statement, nothing to check We verify Stripe signatures');

  // A verify command copies exactly.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const command = webhook.locator('.rd-command').first();
  await command.getByRole('button', { name: 'Copy' }).click();
  await expect(command.getByText('Copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await command.locator('code').textContent());
  await expect(challenge).toHaveCount(0);
  await reviewBothWidths(page, 'readiness-check');

  // The permanent page renders the same report.
  await page.goto(`${BASE()}${reportPath}`);
  await expectReadinessReport(page, body.assessment.findings);
  await reviewBothWidths(page, 'readiness-permalink');
});

test('readiness report on the home page: the example in the same order, accessible at both widths', async ({ page, consoleErrors: _ }) => {
  await page.goto(`${BASE()}/examples`);
  const report = page.getByTestId('report').nth(1);
  const [p, h, f] = await tops(report.getByTestId('readiness-plan'), report.getByTestId('readiness-hazards'), report.getByTestId('readiness-finding'));
  expect(p).toBeLessThan(h);
  expect(h).toBeLessThan(f);
  await report.scrollIntoViewIfNeeded();
  await reviewBothWidths(page, 'readiness-home');
});
