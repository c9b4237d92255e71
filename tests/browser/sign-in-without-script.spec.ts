import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { BASE, buy, screenshot, test } from './helpers';

// The forms that carry a credits key, in Chromium with JavaScript off: what a slow network or a browser without
// scripts does with them. Pressing Enter in the sign-in form on /check or /account posts the key in the body and
// comes back to the same page signed in (the session cookie set, httpOnly); a refused key comes back saying so.
// Nowhere does the key go into an address: not the page's, not any request's. Every form with a key field posts.

/** A browser with JavaScript off that remembers every address it asked for. */
async function withoutScript(browser: Browser): Promise<{ context: BrowserContext; page: Page; asked: string[] }> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const asked: string[] = [];
  page.on('request', (r) => asked.push(r.url()));
  return { context, page, asked };
}

/** Types the key into the page's sign-in form and presses Enter, as someone does before the script has loaded. */
async function pressEnterWithKey(page: Page, key: string) {
  const field = page.getByLabel(/^Credits key/).first();
  await field.fill(key);
  await Promise.all([page.waitForNavigation(), field.press('Enter')]);
}

test('signs in on /check and /account with JavaScript off: back on the page, signed in, the key in no address', async ({ browser, page: scripted }) => {
  test.setTimeout(180_000);
  const { key } = await buy(scripted, 'bundle-25', /Buy 25 calls/);
  const masked = `pac_live_…${key.slice(-4)}`;
  // The same pages with their script, as most people see them: the form, and a refusal a form post came back with.
  for (const path of ['/check', '/account', '/check?sign-in=invalid-key']) {
    await scripted.goto(`${BASE()}${path}`);
    await expect(scripted.getByRole('heading', { name: 'Sign in with your credits key' })).toBeVisible();
    await screenshot(scripted, `script${path.replace(/[/?=]/g, '-')}`);
  }

  for (const path of ['/check', '/account'] as const) {
    const { context, page, asked } = await withoutScript(browser);
    await page.goto(`${BASE()}${path}`);
    await screenshot(page, `no-script${path.replace('/', '-')}-signed-out`);

    // A mistyped key: the same page says so, and nothing is signed in.
    await pressEnterWithKey(page, `pac_live_${'Z'.repeat(40)}`);
    expect(page.url()).toBe(`${BASE()}${path}?sign-in=invalid-key`);
    await expect(page.locator('.field-error')).toHaveText('That key is not valid, or it was replaced by a newer key. Check it and try again.');
    expect(await context.cookies()).toEqual([]);
    await screenshot(page, `no-script${path.replace('/', '-')}-refused`);

    await pressEnterWithKey(page, key);
    expect(page.url()).toBe(`${BASE()}${path}`);
    await expect(page.getByText(`Signed in with ${masked}`)).toBeVisible();
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.value.includes(key.slice(9, 17))])).toEqual([['__Host-pac_session', true, 'Strict', false]]);
    await screenshot(page, `no-script${path.replace('/', '-')}-signed-in`);

    // Every address this browser asked for, the form posts and their redirects included.
    expect(asked.filter((url) => url.includes('key=') || url.includes('pac_live_'))).toEqual([]);
    expect(asked.filter((url) => url === `${BASE()}/api/session`)).toHaveLength(2);
    await context.close();
  }
});

test('every form with a key field on /check and /account posts, signed in or out; the account lookup sends its key in the body', async ({ browser, page: scripted }) => {
  test.setTimeout(180_000);
  const { key } = await buy(scripted, 'bundle-25', /Buy 25 calls/);
  const { context, page, asked } = await withoutScript(browser);
  const keyForms = () => page.locator('form:has(input[name="key"])').evaluateAll((forms) => forms.map((f) => [f.getAttribute('method'), f.getAttribute('action')]));

  await page.goto(`${BASE()}/check`);
  expect(await keyForms()).toEqual([['post', '/api/session']]);
  await page.goto(`${BASE()}/account`);
  expect(await keyForms()).toEqual([['post', '/api/session']]);
  await pressEnterWithKey(page, key);
  expect(page.url()).toBe(`${BASE()}/account`);
  // Signed in, no form asks for the key: the billing lookup is the session's (the key replacement asks for the
  // key only once the sign-in is old).
  expect(await keyForms()).toEqual([]);
  await screenshot(page, 'no-script-account-signed-in-lookup');

  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Show subscription and billing' }).click()]);
  expect(page.url()).toBe(`${BASE()}/api/billing/account`);
  expect(JSON.parse((await page.locator('body').textContent())!)).toMatchObject({ key: `pac_live_…${key.slice(-4)}`, callsLeft: 25 });
  expect(asked.filter((url) => url.includes('key=') || url.includes('pac_live_'))).toEqual([]);
  await context.close();
});
