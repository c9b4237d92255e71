import { field, type ProbeContext, type ProbeItem } from './context';
import { openapiOperation } from './discovery';
import { judged, unpaidRequest } from './judge';
import { knownAsset, priceCentsFromText, unitsToCents, usdToCents } from './price';
import type { Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// One price wherever the seller states it, in USD cents: each MPP challenge (stripe in cents; a token amount by its
// decimals), each x402 accepts entry (by the decimals x402 knows for its asset), both OpenAPI shapes, the words of
// x402's resource description and of llms.txt. The bazaar carries no amount of its own (directories list it with
// the accepts'); the MCP tool's description is the one the MCP item chose (this item runs after it). Each rail names one
// recipient: an agent that sees two addresses for one rail cannot tell which is the seller's.

const RERUN = rerun('the one price item passes with no finding');

const FINDINGS = {
  'price-mismatch': {
    title: 'The price differs between the places it is stated',
    severity: 'high',
    points: 10,
    why: 'An agent compares what discovery promised with what the 402 asks before it pays; a 402 asking more than the listing said reads as a bait and switch and is refused, and a listing saying more than the 402 loses buyers.',
    fix: 'State the price from one constant everywhere: the MPP and x402 terms, OpenAPI x-payment-info (offers and price), the tool descriptions and llms.txt.',
    verify: ['Compare the amounts: the 402\'s challenges and accepts, /openapi.json\'s x-payment-info and /llms.txt state one price.', RERUN],
    references: [SOURCES.x402, SOURCES.mpp, SOURCES.paymentDiscovery],
  },
  'recipient-split': {
    title: 'One rail names more than one recipient',
    severity: 'medium',
    points: 5,
    why: 'Within one rail every offer should pay the same account; two recipients for one rail leave an agent unable to tell which is the seller, and one of them may not be.',
    fix: "Pay every offer of a rail to one address (x402's payTo on each network family, MPP evm's recipient).",
    verify: ['Decode PAYMENT-REQUIRED and the Payment challenges: each rail has one payTo / recipient.', RERUN],
    references: [SOURCES.x402, SOURCES.mpp],
  },
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof FINDINGS;

const onePriceSpec: ItemSpec = {
  id: 'one-price',
  title: 'One price',
  points: 10,
  verifies: "MPP, x402, OpenAPI, the bazaar, the MCP tool's description and llms.txt state one price in USD cents, and each rail names one recipient.",
  findings: FINDINGS,
};

/** One place the price is stated: where, in cents (null: stated in a unit the check cannot turn into USD), and as stated. */
interface Stated {
  source: string;
  cents: number | null;
  stated: string;
}

/** A token amount in cents: by the decimals given, else those x402 knows for the token. */
function tokenCents(amount: unknown, currency: unknown, decimals: unknown, network?: string): number | null {
  const known = typeof currency === 'string' ? knownAsset(currency, network) : null;
  const places = typeof decimals === 'number' ? decimals : known?.decimals;
  return known && places !== undefined ? unitsToCents(amount, places) : null;
}

function mppPrices(ctx: ProbeContext): Stated[] {
  return ctx.terms.mpp.challenges.map((c) => {
    const { amount, currency } = c.request as { amount?: unknown; currency?: unknown };
    const details = field(c.request, 'methodDetails');
    const stated = `${String(amount)} ${String(currency)}`;
    const source = `MPP ${c.method}/${c.intent} challenge`;
    if (typeof currency === 'string' && currency.toLowerCase() === 'usd') {
      const decimals = field(details, 'decimals');
      return { source, cents: unitsToCents(amount, typeof decimals === 'number' ? decimals : 2), stated };
    }
    const chainId = field(details, 'chainId');
    return { source, cents: tokenCents(amount, currency, field(details, 'decimals'), typeof chainId === 'number' ? `eip155:${chainId}` : undefined), stated };
  });
}

function x402Prices(ctx: ProbeContext): Stated[] {
  const decoded = ctx.terms.x402.decoded;
  const accepts = field(decoded, 'accepts');
  const stated: Stated[] = (Array.isArray(accepts) ? accepts : []).map((a, i) => {
    const network = field(a, 'network');
    return {
      source: `x402 accepts[${i}] (${String(network)})`,
      cents: tokenCents(field(a, 'amount'), field(a, 'asset'), undefined, typeof network === 'string' ? network : undefined),
      stated: `${String(field(a, 'amount'))} ${String(field(a, 'asset'))}`,
    };
  });
  const description = field(field(decoded, 'resource'), 'description');
  const described = typeof description === 'string' ? priceCentsFromText(description) : null;
  if (described !== null) stated.push({ source: 'x402 resource.description', cents: described, stated: String(description) });
  return stated;
}

function openapiPrices(ctx: ProbeContext): Stated[] {
  const found = openapiOperation(ctx.discovery.openapi.json, ctx.input.method, ctx.url.pathname);
  const info = field(found?.operation, 'x-payment-info');
  if (info === undefined) return [];
  const stated: Stated[] = [];
  const offers = field(info, 'offers');
  for (const [i, offer] of (Array.isArray(offers) ? offers : []).entries()) {
    const amount = field(offer, 'amount');
    if (amount === undefined || amount === null) continue;
    const currency = field(offer, 'currency');
    const network = field(offer, 'network');
    const cents = typeof currency === 'string' && currency.toLowerCase() === 'usd' ? unitsToCents(amount, 2) : tokenCents(amount, currency, undefined, typeof network === 'string' ? network : undefined);
    stated.push({ source: `OpenAPI x-payment-info.offers[${i}] (${String(field(offer, 'method'))})`, cents, stated: `${String(amount)} ${String(currency)}` });
  }
  const price = field(info, 'price');
  if (field(price, 'mode') === 'fixed') {
    const currency = field(price, 'currency');
    stated.push({ source: 'OpenAPI x-payment-info.price', cents: currency === 'USD' ? usdToCents(field(price, 'amount')) : null, stated: `${String(field(price, 'amount'))} ${String(currency)}` });
  }
  return stated;
}

/** llms.txt's price for the endpoint: on the line that names its path, else in the summary above the first section. */
function llmsPrice(ctx: ProbeContext): Stated[] {
  const text = ctx.discovery.llms.text;
  if (text === null) return [];
  const own = text.split('\n').find((line) => line.includes(ctx.url.href) || line.includes(` ${ctx.url.pathname}`) || line.includes(`(${ctx.url.pathname})`));
  const onLine = own ? priceCentsFromText(own) : null;
  if (onLine !== null) return [{ source: "llms.txt (the endpoint's line)", cents: onLine, stated: own!.slice(0, 200) }];
  const summary = text.split(/\n## /)[0] ?? '';
  const inSummary = priceCentsFromText(summary);
  return inSummary === null ? [] : [{ source: 'llms.txt (summary)', cents: inSummary, stated: summary.slice(0, 200) }];
}

/** The price the MCP tool the MCP item chose states in its title or description, when there is one. */
function mcpPrice(ctx: ProbeContext): Stated[] {
  const tool = ctx.observed.mcpTool;
  if (!tool) return [];
  const words = [tool.title, tool.description].filter(Boolean).join('\n');
  const cents = priceCentsFromText(words);
  return cents === null ? [] : [{ source: `MCP tool ${tool.name} (description)`, cents, stated: words.slice(0, 200) }];
}

/** Recipients per rail: x402 payTo per network family, MPP recipient per method. */
function recipients(ctx: ProbeContext): Record<string, string[]> {
  const rails: Record<string, Set<string>> = {};
  const note = (rail: string, to: unknown) => typeof to === 'string' && to && (rails[rail] ??= new Set()).add(to.toLowerCase());
  const accepts = field(ctx.terms.x402.decoded, 'accepts');
  for (const a of Array.isArray(accepts) ? accepts : []) note(`x402 ${String(field(a, 'network')).split(':')[0]}`, field(a, 'payTo'));
  for (const c of ctx.terms.mpp.challenges) note(`MPP ${c.method}`, field(c.request, 'recipient'));
  return Object.fromEntries(Object.entries(rails).map(([rail, set]) => [rail, [...set]]));
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  if (ctx.terms.x402.decoded === null && ctx.terms.mpp.challenges.length === 0) {
    return { state: 'not-applicable', why: 'The unpaid answer states no payment terms the check can read: there is no price to compare.', evidence: [{ request: unpaidRequest(ctx), status: ctx.unpaidResponse?.status ?? null }], faults: [] };
  }
  const stated = [...mppPrices(ctx), ...x402Prices(ctx), ...openapiPrices(ctx), ...llmsPrice(ctx), ...mcpPrice(ctx)];
  const priced = stated.filter((s): s is Stated & { cents: number } => s.cents !== null);
  const faults: Fault[] = [];
  const prices = [...new Set(priced.map((s) => s.cents))];
  if (prices.length > 1) {
    // The terms the 402 asks are what an agent pays: every other place is compared with them.
    faults.push({ id: 'price-mismatch' satisfies FindingId, observed: priced.map((s) => `${s.source}: ${s.cents} cents`).join('; ') });
  }
  const byRail = recipients(ctx);
  const split = Object.entries(byRail).filter(([, to]) => to.length > 1);
  if (split.length) faults.push({ id: 'recipient-split' satisfies FindingId, observed: split.map(([rail, to]) => `${rail} pays ${to.join(' and ')}`).join('; ') });
  const evidence = [
    {
      request: `${unpaidRequest(ctx)}; GET ${ctx.discovery.openapi.url}; GET ${ctx.discovery.llms.url}`,
      status: ctx.unpaidResponse?.status ?? null,
      answer: { stated, recipients: byRail },
      note: 'The bazaar states no amount of its own (directories list it with the accepts\' amounts).',
    },
  ];
  const pass = priced.length > 1 ? `${priced.length} places state one price, ${prices[0]} cents, and each rail names one recipient.` : `Only ${priced.length} place states a price in USD, so there is nothing to disagree; each rail names one recipient.`;
  return judged(faults, FINDINGS, pass, evidence);
}

export const onePrice: ProbeItem = { spec: onePriceSpec, probe, runsAfter: 'mcp' };
