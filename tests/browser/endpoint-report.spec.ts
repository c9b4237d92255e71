import fs from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { ENDPOINT_STAGES, endpointStage, itemStateWords } from '@/lib/checks/payment-endpoint/report';
import { severityLabel } from '@/lib/checks/severity';
import type { EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { endpointFixtureBody } from '../support/endpoint-report-fixture';
import { BASE, buy, expectNoSidewaysScroll, midWordBreaks, PHONE, reviewBothWidths, screenshot, signIn, test } from './helpers';

// The endpoint check's report as a buyer reads it in Chromium against `next start`: run from its tab on /check
// and opened on its permanent page, every rubric item shows its state in words, every finding its fix, verify
// steps and sources, and every request the check sent is listed; the stored example on the home page reads the
// same way. A report with every state, findings, evidence and a transfer (tests/support/endpoint-report-fixture.ts)
// is drawn through the same page. Every page passes axe and scrolls nothing sideways on a phone.

const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;

/** Everything the view owes an endpoint report, checked against the body it renders. */
async function expectEndpointReport(page: Page, report: Locator, body: { report: EndpointReport }) {
  const r = body.report;
  await expect(report.getByRole('heading', { name: `Payment endpoint ${r.endpoint.url}` })).toBeVisible();
  await expect(report.getByRole('heading', { name: 'Rubric items' })).toBeVisible();
  await expect(report.getByRole('heading', { name: 'Findings, most severe first' })).toBeVisible();
  await expect(report.getByRole('heading', { name: 'Transfers made' })).toBeVisible();
  const items = report.getByTestId('endpoint-item');
  // By stage, in the order an agent meets them.
  const ordered = ENDPOINT_STAGES.flatMap((s) => r.items.filter((i) => endpointStage(i.id) === s.key));
  await expect(items).toHaveCount(r.items.length);
  expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))).toEqual(ordered.map((i) => i.state));
  expect(await report.getByTestId('item-state').allTextContents()).toEqual(ordered.map((i) => itemStateWords(i.state)));
  for (const [i, item] of ordered.entries()) await expect(items.nth(i).getByRole('heading', { name: item.title })).toBeVisible();
  // Findings, folded: each one's title and severity in words, in the order of severity; none when there are none.
  const findings = report.getByTestId('endpoint-finding');
  expect(await findings.locator('.finding-title').allTextContents()).toEqual(r.findings.map((f) => f.title));
  expect(await findings.locator('summary .badge').allTextContents()).toEqual(r.findings.map((f) => severityLabel(f.severity)));
  await expect(report.getByTestId('endpoint-requests').locator('summary')).toHaveText(`Every request the check sent (${r.requests.length}; at most 25 per domain)`);
  await report.getByTestId('endpoint-requests').locator('summary').click();
  await expect(report.getByTestId('endpoint-requests').locator('tbody tr')).toHaveCount(r.requests.length);
}

test('a stored endpoint report: run from its tab, then on its permanent page, every item in words', async ({ page, request, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await page.getByRole('button', { name: 'Payment endpoint' }).click();
  // The form says what it will not send before sending it.
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.locator('#endpoint-url-error')).toHaveText('Required: enter the address of the paid endpoint.');
  await page.getByLabel('Paid endpoint address').fill(SHOP());
  await page.getByLabel('Example JSON body').fill('{"teapots": ');
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.locator('#endpoint-body-error')).toContainText('Not JSON');
  await page.getByLabel('Example JSON body').fill('{"teapots": 2}');
  await expect(page.getByLabel('Pay the endpoint once for real')).not.toBeChecked();
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  const live = page.getByTestId('report');
  await expect(live.getByRole('heading', { name: 'Rubric items' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('calls-left')).toHaveText('24');

  const reportPath = (await page.getByRole('link', { name: 'permanent link to this report' }).getAttribute('href'))!;
  const stored = (await (await request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { report: EndpointReport };
  expect(stored.report.endpoint).toEqual({ url: SHOP(), method: 'POST', bodySource: 'given', mcp: null });
  await page.goto(`${BASE()}${reportPath}`);
  await expectEndpointReport(page, page.getByTestId('report'), stored);
  await reviewBothWidths(page, 'endpoint-report-stored');
});

test('a report with every state, findings, evidence and a transfer reads in words, at 1280 and 390', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const body = endpointFixtureBody();
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  // The page draws whatever 200 body the check answers: here the fixture's, so every part of the view shows.
  await page.route('**/api/session/checks/payment-endpoint', (route) => route.fulfill({ status: 200, contentType: 'application/json', headers: { 'credits-remaining': '25' }, body: JSON.stringify(body) }));
  await page.getByRole('button', { name: 'Payment endpoint' }).click();
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await expect(page.getByLabel('Paid endpoint address')).toHaveValue('https://api.example.com/api/agent/readiness');
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  const report = page.getByTestId('report');
  await expectEndpointReport(page, report, body);
  await expect(report.getByTestId('top-fixes').getByRole('link', { name: 'No bazaar extension in the 402' })).toBeVisible();
  const finding = report.getByTestId('endpoint-finding').first();
  // Folded to one line with its fix; the top fix's link opens it.
  await expect(finding.getByRole('heading', { name: 'How to verify' })).toBeHidden();
  await report.getByTestId('top-fixes').getByRole('link', { name: 'No bazaar extension in the 402' }).click();
  await expect(finding.locator('details')).toHaveAttribute('open', '');
  await expect(finding.getByRole('heading', { name: 'How to verify' })).toBeVisible();
  await expect(finding.getByRole('link', { name: 'x402 bazaar extension' })).toHaveAttribute('href', body.report.findings[0].references[0].url);
  await expect(finding).toContainText(body.report.findings[0].fix);
  // Evidence folds open to the request and the answer decoded.
  const terms = report.getByTestId('endpoint-item').nth(1);
  await terms.getByText('Evidence (1)').click();
  await expect(terms.locator('pre')).toContainText('"x402Version": 2');
  await expect(report.getByTestId('endpoint-transfers')).toContainText(body.report.transfers[0].txHash);
  await page.evaluate(() => window.scrollTo(0, 0));
  await reviewBothWidths(page, 'endpoint-report-every-state');
  await page.setViewportSize(PHONE);
  await report.locator('details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  await expectNoSidewaysScroll(page);
  expect(await midWordBreaks(page)).toEqual([]);
  await screenshot(page, 'endpoint-report-every-state-open-phone');
});

test('the home example of the endpoint check: the stored run, every item and request', async ({ page, consoleErrors: _ }) => {
  await page.goto(`${BASE()}/examples`);
  const example = page.getByRole('region', { name: 'Example Payment endpoint report' });
  const body = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../lib/checks/payment-endpoint/example.json'), 'utf8')) as { report: EndpointReport };
  await expectEndpointReport(page, example.getByTestId('report'), body);
  await screenshot(page, 'endpoint-home-example');
});
