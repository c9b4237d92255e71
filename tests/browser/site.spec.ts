import fs from 'node:fs';
import { expect, type Page } from '@playwright/test';
import storedExample from '../../lib/checks/visibility/example.json';
import { DOCS_PAGES } from '../../lib/docs/pages';
import {
  BASE, buy, DESKTOP, expectAccessible, expectNoSidewaysScroll, expectRefusedRequestLogged, midWordBreaks, PHONE, reviewBothWidths, screenshot, signIn, test,
} from './helpers';

// The site as a person uses it, in Chromium against `next start`: buy a plan on the Checkout stand-in, sign
// in with the key, run both checks (the visibility check against the fixture shop that global-setup serves
// behind the fake internet), read the report, find it in the history and at its permanent address, sign
// out and find it closed, replace the key and see the old one refused. Every page is screenshotted on a
// desktop and a phone and must pass axe with no violation at all.

const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;
const DOWN = () => `http://${process.env.PW_FIXTURE_DOWN_HOST}/`;

/** Signs out on the account page and waits for the signed-out page, so the next navigation cannot cut the request short. */
async function signOutOnAccount(page: Page) {
  await page.goto(`${BASE()}/account`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in with your credits key' })).toBeVisible();
}

const PAGES = [
  ['/', 'home', 'Paid checks for agent commerce'],
  ['/check', 'check-signed-out', 'Run a check'],
  ['/account', 'account-signed-out', 'Your account'],
  ['/pricing', 'pricing-page', 'Pricing'],
  ...DOCS_PAGES.map((p) => [p.path, p.path === '/docs' ? 'docs-page' : `docs-${p.path.split('/').pop()}`, p.title] as const),
  ['/terms', 'terms', 'Terms of service'],
  ['/privacy', 'privacy', 'Privacy'],
  ['/refunds', 'refunds', 'Refunds'],
  ['/contact', 'contact', 'Contact support'],
  ['/no-such-page', 'not-found', 'Page not found'],
] as const;

for (const [path, name, h1] of PAGES) {
  test(`${path} renders in the site chrome, on desktop and phone, accessibly`, async ({ page, consoleErrors }) => {
    // axe over the REST reference (every endpoint) at two widths takes a minute on a busy machine.
    test.setTimeout(180_000);
    const res = await page.goto(`${BASE()}${path}`);
    expect(res!.status()).toBe(path === '/no-such-page' ? 404 : 200);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(h1);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(page.getByRole('navigation', { name: 'Legal and support' }).getByRole('link', { name: 'Contact support' })).toBeVisible();
    await reviewBothWidths(page, name);
    // Chromium logs the 404 document itself as a failed resource.
    if (path === '/no-such-page') expectRefusedRequestLogged(consoleErrors, 404);
  });
}

test('the home page shows the first screen of each check\'s example, and the examples page the whole report', async ({ page, consoleErrors: _ }) => {
  await page.goto(`${BASE()}/`);
  const reports = page.getByTestId('report');
  await expect(reports).toHaveCount(3);
  await expect(reports.nth(0).getByTestId('report-score')).toHaveText(String(storedExample.report.score));
  await expect(reports.nth(0).getByTestId('category-scores').getByRole('listitem')).toHaveCount(6);
  // An excerpt: header, categories and fixes, no findings list and no crawler table.
  await expect(reports.nth(0).getByTestId('crawler-attention')).toHaveCount(0);
  await expect(reports.nth(1).getByTestId('report-verdict')).toHaveText('Not ready');
  await expect(page.getByText('Example · AI Visibility Check')).toBeVisible();
  await page.getByRole('link', { name: 'The full example AI Visibility report' }).click();
  await expect(page).toHaveURL(`${BASE()}/examples#example-ai-visibility`);
  const full = page.getByTestId('report');
  await expect(full).toHaveCount(3);
  await expect(full.nth(0).getByTestId('crawler-attention').getByRole('row', { name: /GPTBot/ })).toContainText('Disallowed');
});

test('docs: the sidebar reaches every page, marks the current one and stays in view', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(120_000);
  await page.goto(`${BASE()}/docs`);
  const sidebar = page.getByRole('navigation', { name: 'Documentation' });
  await expect(sidebar.getByRole('link')).toHaveText(DOCS_PAGES.map((p) => p.label));
  for (const p of DOCS_PAGES) {
    await sidebar.getByRole('link', { name: p.label, exact: true }).click();
    await expect(page).toHaveURL(`${BASE()}${p.path}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(p.title);
    // The current page, and only it, is marked.
    await expect(sidebar.locator('[aria-current="page"]')).toHaveText([p.label]);
  }
  // Far down the longest page, the sidebar is still in view.
  await page.goto(`${BASE()}/docs/api`);
  await page.locator('#limits').scrollIntoViewIfNeeded();
  await expect(sidebar.getByRole('link', { name: 'Payments' })).toBeInViewport();
  await screenshot(page, 'docs-scrolled');
  // The main navigation marks Docs on every docs page.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Docs' })).toHaveAttribute('aria-current', 'true');

  // On a phone the sidebar is one button naming the page; it opens the list, and a link goes there.
  await page.setViewportSize(PHONE);
  const toggle = sidebar.getByRole('button', { name: 'Docs: REST reference' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(sidebar.getByRole('link', { name: 'Payments' })).toBeHidden();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await screenshot(page, 'docs-menu-phone');
  await sidebar.getByRole('link', { name: 'Payments' }).click();
  await expect(page).toHaveURL(`${BASE()}/docs/payments`);
  await expect(sidebar.getByRole('button', { name: 'Docs: Payments' })).toHaveAttribute('aria-expanded', 'false');
  await page.setViewportSize(DESKTOP);
});

test('docs: every code block scrolls inside itself and its copy button copies it whole', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(120_000);
  const counts: Record<string, number> = {};
  for (const p of DOCS_PAGES) {
    await page.goto(`${BASE()}${p.path}`);
    // Every code block keeps its lines whole: a line longer than the block scrolls inside it.
    const blocks = await page.evaluate(() =>
      [...document.querySelectorAll('pre')].map((pre) => ({
        scrolls: getComputedStyle(pre).overflowX === 'auto' && getComputedStyle(pre).whiteSpace === 'pre',
        copy: pre.closest('.code-block')?.querySelector('button')?.getAttribute('aria-label') === `Copy: ${pre.getAttribute('aria-label')}`,
      })),
    );
    counts[p.path] = blocks.length;
    expect(blocks.filter((b) => !b.scrolls || !b.copy), p.path).toEqual([]);
    await page.setViewportSize(PHONE);
    await expectNoSidewaysScroll(page);
    await page.setViewportSize(DESKTOP);
  }
  // Every page shows code but the checks' and the REST reference's index, whose examples are on each endpoint's page.
  expect(Object.entries(counts).filter(([, n]) => n === 0).map(([path]) => path)).toEqual(['/docs/api', '/docs/checks']);
  await page.goto(`${BASE()}/docs`);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const example = page.getByLabel('Prepaid key example', { exact: true });
  // The one $BASE: every example command names the service through it.
  await expect(example).toContainText('curl -s $BASE/api/agent/credits');
  await page.getByRole('button', { name: 'Copy: Prepaid key example' }).click();
  await expect(page.getByText('Copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await example.textContent());
});

test('docs: the old single page\'s anchors lead to the page their section is on now', async ({ page, consoleErrors: _ }) => {
  for (const [old, now] of [
    ['readiness-rubric', '/docs/checks#readiness-rubric'],
    ['visibility-rubric', '/docs/checks#ai-visibility-rubric'],
    ['problem-credits-exhausted', '/docs/api#problem-credits-exhausted'],
    ['quick-start-prepaid', '/docs/payments#quick-start-prepaid'],
  ] as const) {
    await page.goto(`${BASE()}/docs#${old}`);
    await expect(page).toHaveURL(`${BASE()}${now}`);
    await expect(page.locator(`#${now.split('#')[1]}`)).toBeInViewport();
  }
  // The quick start keeps its own.
  await page.goto(`${BASE()}/docs#quick-start`);
  await expect(page.locator('#quick-start')).toBeVisible();
  expect(page.url()).toBe(`${BASE()}/docs#quick-start`);
});

test('buy, sign in, check a site, read the report, find it in the history, sign out, replace the key', async ({ page, request, consoleErrors }) => {
  // One journey across nine pages, each screenshotted and checked by axe at two widths.
  test.setTimeout(300_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);

  await page.goto(`${BASE()}/check`);
  await expect(page.getByRole('link', { name: 'Run a check' }).first()).toHaveAttribute('aria-current', 'page');
  await signIn(page, key);
  await expect(page.getByTestId('calls-left')).toHaveText('25');
  // The cookie holds an opaque session id, never the key, and scripts cannot read it.
  const cookies = await page.context().cookies();
  // The server runs as in production: the cookie is Secure, so it carries the __Host- prefix.
  const session = cookies.find((c) => c.name === '__Host-pac_session')!;
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: true, path: '/' });
  expect(session.value).not.toContain(key.slice(9));
  expect(await page.evaluate(() => document.cookie)).toBe('');
  await reviewBothWidths(page, 'check-signed-in');

  // AI visibility: an empty field is refused in words, before anything is spent.
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.getByText('Required: enter the address of a page.')).toBeVisible();

  // A site that cannot be reached: 422, nothing charged.
  await page.getByLabel('Page address').fill(DOWN());
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.getByTestId('check-problem')).toContainText('Nothing was charged.');
  expectRefusedRequestLogged(consoleErrors, 422);
  await expect(page.getByTestId('calls-left')).toHaveText('25');
  await screenshot(page, 'check-unreachable');

  // Switching checks shows each check's own answer only: no visibility error under the readiness form.
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await expect(page.getByRole('heading', { name: 'Agent Payment Readiness Assessment' })).toBeVisible();
  await expect(page.getByTestId('check-problem')).toHaveCount(0);
  await page.getByRole('button', { name: 'AI Visibility' }).click();
  await expect(page.getByTestId('check-problem')).toContainText('Nothing was charged.');

  // A bare address is what the API accepts too: the form sends it as typed and the server checks it over
  // https (the fixture shop answers plain http only, so https fails there: 422, nothing charged).
  await page.getByLabel('Page address').fill(`${process.env.PW_FIXTURE_HOST}/teapots`);
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/session/checks/ai-visibility') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  expect((await sent).postDataJSON()).toEqual({ url: `${process.env.PW_FIXTURE_HOST}/teapots` });
  await expect(page.locator('#visibility-url-error')).toHaveCount(0);
  await expect(page.getByTestId('check-problem')).toContainText('Nothing was charged.');
  expectRefusedRequestLogged(consoleErrors, 422);
  await expect(page.getByTestId('calls-left')).toHaveText('25');
  await screenshot(page, 'check-bare-address');

  await page.getByLabel('Page address').fill(SHOP());
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  const report = page.getByTestId('report');
  await expect(report.getByTestId('top-fixes')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('calls-left')).toHaveText('24');
  const permalink = page.getByRole('link', { name: 'permanent link to this report' });
  const reportPath = (await permalink.getAttribute('href'))!;
  expect(reportPath).toMatch(/^\/reports\/rep_[A-Za-z0-9_-]{32}$/);
  // What the page shows is the stored answer of the paid call, as the API gives it to the key's owner.
  const stored = await request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } });
  expect(stored.status()).toBe(200);
  const body = (await stored.json()) as { report: { score: number; checkedUrl: string; findings: Array<{ severity: string; fix: string }> } };
  expect(body.report.checkedUrl).toBe(SHOP());
  const score = String(body.report.score);
  await expect(report.getByTestId('report-score')).toHaveText(score);
  await expect(report.getByRole('heading', { level: 2 })).toContainText(SHOP());
  // Every crawler is one click away, grouped by vendor.
  await report.getByText('All 16 crawlers, by vendor').click();
  const matrix = report.getByTestId('crawler-matrix');
  await expect(matrix.locator('tbody th[scope="row"]')).toHaveCount(16);
  await expect(matrix.getByRole('row', { name: /GPTBot/ })).toContainText('Disallowed');
  await expect(matrix.getByRole('row', { name: /GPTBot/ })).toContainText('Disallow: /');
  await expect(matrix.getByRole('row', { name: /^Googlebot / })).toContainText('Allowed');
  const lows = body.report.findings.filter((f) => f.severity === 'low').length;
  expect(lows).toBeGreaterThan(0);
  await expect(report.locator('.finding-fold .badge.low')).toHaveCount(lows);
  // The most severe finding's fix is on its folded line in the list of findings, and it leads the fixes at the top.
  await expect(report.locator('.finding-fix-line').filter({ hasText: body.report.findings[0].fix })).toBeVisible();
  await expect(report.getByTestId('top-fixes').getByText(body.report.findings[0].fix)).toBeVisible();
  await reviewBothWidths(page, 'check-visibility-result');

  // Download JSON gives the body exactly; Copy as Markdown the report as text.
  const download = page.waitForEvent('download');
  await report.getByRole('button', { name: 'Download JSON' }).click();
  const downloaded = JSON.parse(fs.readFileSync((await (await download).path())!, 'utf8'));
  expect(downloaded).toEqual(body);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await report.getByRole('button', { name: 'Copy as Markdown' }).click();
  await expect(report.getByText('Copied.').first()).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`# AI visibility: \`${SHOP()}\``);

  // Readiness: the form says what is missing, in words; the example fills it. The visibility report stays in its own tab.
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await expect(page.getByTestId('report')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.getByText('13 fields need attention before the check can run.')).toBeVisible();
  await expect(page.locator('#readiness-name-error')).toHaveText('Required: name the workflow.');
  await expect(page.locator('#readiness-idempotency-status-error')).toHaveText('Required: choose a status.');
  await expect(page.locator('#readiness-name')).toBeFocused();
  await reviewBothWidths(page, 'check-readiness-errors');
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await expect(page.locator('#readiness-name')).toHaveValue('Checkout agent');
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.getByTestId('report-verdict')).toHaveText('Not ready');
  await expect(page.getByTestId('calls-left')).toHaveText('23');
  await expect(page.getByTestId('report').getByRole('table')).toContainText('Recovery and reconciliation');
  await expect(page.getByTestId('report')).not.toContainText('recovery_and_reconciliation');
  await reviewBothWidths(page, 'check-readiness-result');
  await page.getByRole('button', { name: 'AI Visibility' }).click();
  await expect(page.getByTestId('report')).toHaveCount(1);
  // The visibility result is back under its own tab: its crawler list (folded when every crawler gets the page).
  await expect(page.getByTestId('crawler-matrix')).toBeAttached();
  await expect(page.getByTestId('report-verdict')).not.toHaveText('Not ready');
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await expect(page.getByTestId('report-verdict')).toHaveText('Not ready');

  // The history lists both, newest first, and links to the permanent address.
  await page.goto(`${BASE()}/account`);
  await expect(page.getByTestId('account-session-calls')).toHaveText('23');
  const rows = page.getByTestId('history').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Payment Readiness');
  await expect(rows.nth(1)).toContainText(SHOP());
  await expect(rows.nth(1)).toContainText(score);
  await reviewBothWidths(page, 'account-signed-in');
  await rows.nth(1).getByRole('link').click();
  await expect(page).toHaveURL(`${BASE()}${reportPath}`);
  await expect(page.getByTestId('report-score')).toHaveText(score);
  await expect(page.getByTestId('top-fixes')).toBeVisible();
  await reviewBothWidths(page, 'report-permalink');

  // Signed out, the report is closed.
  await signOutOnAccount(page);
  expect((await page.context().cookies()).find((c) => c.name === '__Host-pac_session')).toBeUndefined();
  await page.goto(`${BASE()}${reportPath}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to see this report');
  await expect(page.getByTestId('report')).toHaveCount(0);
  await reviewBothWidths(page, 'report-signed-out');

  // Sign in there, then replace the key on the account page.
  await signIn(page, key);
  await expect(page.getByTestId('report-score')).toHaveText(score);
  await page.goto(`${BASE()}/account`);
  await page.getByRole('button', { name: 'Replace this key' }).click();
  await page.getByRole('button', { name: 'Yes, replace my key' }).click();
  const rotated = (await page.getByTestId('rotated-key').textContent())!.trim();
  expect(rotated).toMatch(/^pac_live_[0-9A-Za-z]{40}$/);
  expect(rotated).not.toBe(key);
  await expect(page.getByTestId('key-prefix')).toHaveText(`pac_live_…${rotated.slice(-4)}`);
  // The page was rendered again for the new key (router.refresh); its metadata arrives with it.
  await expect(page).toHaveTitle('Account · Paid Agent Checks');
  await screenshot(page, 'account-rotated');
  await expectAccessible(page, 'account-rotated', { strict: true });

  // The old key is refused; the new one signs in and still owns the report.
  await signOutOnAccount(page);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await expect(page.getByText('That key is not valid')).toBeVisible();
  expectRefusedRequestLogged(consoleErrors, 401);
  await screenshot(page, 'check-old-key-refused');
  await signIn(page, rotated);
  await expect(page.getByTestId('calls-left')).toHaveText('23');
  await page.goto(`${BASE()}${reportPath}`);
  await expect(page.getByTestId('report-score')).toHaveText(score);

  // Another key cannot open it: the same page as an id that does not exist.
  const other = await buy(page, 'bundle-25', /Buy 25 calls/);
  await signOutOnAccount(page);
  await page.goto(`${BASE()}/check`);
  await signIn(page, other.key);
  await expect(page.getByTestId('calls-left')).toHaveText('25');
  const res = await page.goto(`${BASE()}${reportPath}`);
  expect(res!.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Report not found');
  expectRefusedRequestLogged(consoleErrors, 404);
  await reviewBothWidths(page, 'report-not-found');
});

/** How many of the main navigation's items stand on each row, top to bottom. */
async function navRowSizes(page: Page): Promise<number[]> {
  const tops = await page.getByRole('navigation', { name: 'Main' }).getByRole('listitem').evaluateAll((items) =>
    items.map((li) => Math.round(li.getBoundingClientRect().top)),
  );
  const rows = new Map<number, number>();
  for (const top of tops) rows.set(top, (rows.get(top) ?? 0) + 1);
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}

for (const [path, name] of PAGES) {
  test(`${path}: the navigation leaves no item alone on a row, and no word breaks mid-word, at 1280 and 390`, async ({ page, consoleErrors }) => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${BASE()}${path}`);
    const words = () => midWordBreaks(page);
    const desktop = { navRows: await navRowSizes(page), brokenWords: await words() };
    await page.setViewportSize(PHONE);
    await screenshot(page, `${name}-phone-layout`);
    const phone = { navRows: await navRowSizes(page), brokenWords: await words() };
    // On a phone the five items share two rows (three and two) under the site's name.
    expect({ desktop, phone }).toEqual({ desktop: { navRows: [5], brokenWords: [] }, phone: { navRows: [3, 2], brokenWords: [] } });
    if (path === '/no-such-page') expectRefusedRequestLogged(consoleErrors, 404);
  });
}

test('the readiness form: its boxes line up, row by row, at 1280 and 390', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(120_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  const form = page.locator('form.readiness-form');
  await expect(form.getByRole('group')).toHaveCount(11);
  /** For each control: its left edge, its width, and its top, rounded to the pixel. */
  const boxes = () =>
    form.locator('.capability-fields select, .capability-fields textarea').evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { kind: el.tagName.toLowerCase(), left: Math.round(r.left), width: Math.round(r.width), top: Math.round(r.top) };
      }),
    );
  for (const [viewport, label] of [[DESKTOP, 'readiness-form'], [PHONE, 'readiness-form-phone']] as const) {
    await page.setViewportSize(viewport);
    await screenshot(page, label);
    const all = await boxes();
    expect(all).toHaveLength(20);
    // Every status box and every evidence box is as wide as the others, and starts at one of the columns' left edges.
    expect(new Set(all.map((b) => b.width)).size, `${label}: widths`).toBe(1);
    const columns = [...new Set(all.map((b) => b.left))].sort((a, b) => a - b);
    // Side by side, the boxes of one row of capabilities start at the same height.
    const tops = (kind: string) => all.filter((b) => b.kind === kind);
    for (const kind of ['select', 'textarea']) {
      const ofKind = tops(kind);
      for (let i = 0; i < ofKind.length; i += columns.length) {
        const row = ofKind.slice(i, i + columns.length);
        expect(new Set(row.map((b) => b.top)).size, `${label}: ${kind} row ${i / columns.length + 1} ${JSON.stringify(row)}`).toBe(1);
      }
    }
    await expectNoSidewaysScroll(page);
  }
  await page.setViewportSize(DESKTOP);
});

for (const [path, name] of [['/terms', 'terms'], ['/privacy', 'privacy'], ['/refunds', 'refunds']] as const) {
  test(`${path} opens with its effective date and who operates the service, saying plainly what is not set`, async ({ page, consoleErrors: _ }) => {
    await page.goto(`${BASE()}${path}`);
    const meta = page.getByTestId('policy-meta');
    // The browser tests' server sets neither OPERATOR_NAME nor OPERATOR_ADDRESS.
    await expect(meta.locator('dt')).toHaveText(['Effective', 'Operated by', 'Address']);
    await expect(meta.locator('dd')).toHaveText([
      '25 November 2026',
      'Not named: the operator of this instance has not given its name.',
      'Not given: the operator of this instance has not given a postal address.',
    ]);
    await expect(meta.locator('time')).toHaveAttribute('datetime', '2026-11-25');
    await screenshot(page, `${name}-head`);
  });
}
