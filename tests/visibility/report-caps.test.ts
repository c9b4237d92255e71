// A hostile site fills every value the visibility report echoes back; the report stays within the bounds the
// OpenAPI document publishes for it, and under REPORT_MAX_BYTES as a whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility, type VisibilityReport } from '@/lib/checks/visibility/check';
import { capReport, cutString, CUT_MARK, REPORT_CAPS, REPORT_MAX_BYTES } from '@/lib/checks/visibility/report-caps';
import { openApiDocument } from '@/lib/discovery/openapi';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { BLOAT_PAGE_PATH, BLOAT_START_PATH, bloatRoutes } from './bloat-site';

type Schema = { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; maxLength?: number; maxItems?: number; items?: Schema; properties?: Record<string, Schema>; anyOf?: Schema[] };

/** The report's schema as a client reads it: the 200 body of POST /api/agent/ai-visibility in the OpenAPI document. */
function publishedReportSchema(): Schema {
  const doc = openApiDocument({ appUrl: 'https://checks.example', rails: [], usdcAddress: '0x0', contactEmail: 'support@checks.example' }) as unknown as {
    paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: Schema }> }> } }>;
  };
  return doc.paths['/api/agent/ai-visibility'].post.responses['200'].content['application/json'].schema.properties!.report;
}

/** Bytes of a string's JSON text without its quotes. */
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * Every place `value` exceeds a maxLength (counted in JSON bytes, which is at least the characters) or a
 * maxItems of `schema`, and every member the schema does not describe; also counts the bounds it met.
 */
function violations(value: unknown, schema: Schema, path: string, out: { over: string[]; undescribed: string[]; bounded: number }): void {
  if (schema.anyOf) {
    for (const branch of schema.anyOf) violations(value, branch, path, out);
    return;
  }
  if (typeof value === 'string' && schema.maxLength !== undefined) {
    out.bounded++;
    if (jsonBytes(value) > schema.maxLength) out.over.push(`${path} (${jsonBytes(value)} bytes > ${schema.maxLength})`);
  }
  if (Array.isArray(value) && schema.type === 'array') {
    if (schema.maxItems !== undefined) {
      out.bounded++;
      if (value.length > schema.maxItems) out.over.push(`${path} (${value.length} items > ${schema.maxItems})`);
    }
    if (schema.items) value.forEach((item, i) => violations(item, schema.items!, `${path}[${i}]`, out));
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && schema.type === 'object') {
    const members = schema.properties ?? {};
    for (const [name, member] of Object.entries(value)) {
      if (name in members) violations(member, members[name], `${path}.${name}`, out);
      else out.undescribed.push(`${path}.${name}`);
    }
  }
}

/**
 * The most bytes a value fitting `schema` can take as JSON: strings by maxLength, lists by maxItems, objects by
 * their named members; a number at most 24 bytes (`-1.2345678901234567e+308`), a bounded integer its digits. Infinity when anything is unbounded.
 */
function jsonBound(schema: Schema): number {
  if (schema.anyOf) return Math.max(...schema.anyOf.map(jsonBound));
  if (schema.enum) return Math.max(...schema.enum.map((v) => JSON.stringify(v).length));
  if (Array.isArray(schema.type)) return Math.max(...schema.type.map((type) => jsonBound({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return schema.maxLength === undefined ? Infinity : schema.maxLength + 2;
    case 'array':
      return schema.maxItems === undefined || !schema.items ? Infinity : 2 + schema.maxItems * (jsonBound(schema.items) + 1);
    case 'object':
      return 2 + Object.entries(schema.properties ?? {}).reduce((sum, [name, member]) => sum + JSON.stringify(name).length + 2 + jsonBound(member), 0);
    case 'null':
      return 4;
    case 'boolean':
      return 5;
    case 'integer':
      // Bounded integers take their digits; any other number at most 24 bytes.
      return schema.minimum !== undefined && schema.maximum !== undefined ? Math.max(String(schema.minimum).length, String(schema.maximum).length) : 24;
    case 'number':
      return 24;
    default:
      return Infinity;
  }
}

/** A value cut at a cap of `max` bytes: marked, within the cap, and short of it by less than one more character (6 bytes at most). */
function expectCut(value: string | null | undefined, max: number): void {
  expect(value?.endsWith(CUT_MARK), `${value?.slice(0, 40)}… ends with the mark`).toBe(true);
  expect(jsonBytes(value!)).toBeLessThanOrEqual(max);
  expect(jsonBytes(value!)).toBeGreaterThan(max - 6);
}

let site: FixtureSite;
let report: VisibilityReport;

beforeAll(async () => {
  site = await startFixtureSite(bloatRoutes());
  ({ report } = await checkVisibility(`https://site.test${BLOAT_START_PATH}`, { hostMap: site.hostMap(['site.test']) }));
}, 60_000);
afterAll(() => site?.close());

describe('the visibility report against a site that fills every field', () => {
  it('stays under 768 KB and within every maxLength and maxItems the OpenAPI document publishes', () => {
    const json = JSON.stringify(report);
    expect(Buffer.byteLength(json)).toBeLessThan(REPORT_MAX_BYTES);
    const found = { over: [] as string[], undescribed: [] as string[], bounded: 0 };
    violations(report, publishedReportSchema(), 'report', found);
    expect(found.over).toEqual([]);
    // Every member is described with its bounds, so the bound below holds for the whole report.
    expect(found.undescribed).toEqual([]);
    // The walk met the bounds it checks: the schema carries them and the report has the members.
    expect(found.bounded).toBeGreaterThan(200);
  });

  it('cuts each long value the site chose at its cap, marked with …, and keeps the measured lengths', () => {
    const { page, site: s, crawlers, findings } = report;
    expectCut(page.title, REPORT_CAPS.title);
    expect(page.titleLength).toBe(60_000);
    expectCut(page.metaDescription, REPORT_CAPS.description);
    expect(page.metaDescriptionLength).toBe(60_000);
    expectCut(page.canonical, REPORT_CAPS.url);
    expectCut(page.lang, REPORT_CAPS.token);
    expect(page.robots.meta).toHaveLength(REPORT_CAPS.robotsTags);
    expect(page.robots.meta[0].directives).toHaveLength(REPORT_CAPS.directives);
    expectCut(page.robots.meta[0].raw, REPORT_CAPS.quote);
    expectCut(page.robots.header[0].raw, REPORT_CAPS.quote);
    expect(page.jsonLd.types).toHaveLength(REPORT_CAPS.jsonLdTypes);
    expectCut(page.jsonLd.types.at(-1), REPORT_CAPS.token);
    expect(page.jsonLd.problems).toHaveLength(REPORT_CAPS.jsonLdProblems);
    expect(page.jsonLd.problems.find((p) => p.type === 'FAQPage')?.missing).toHaveLength(REPORT_CAPS.jsonLdMissing);

    // Addresses the check follows are refused past 2,000 characters, so these come whole.
    expect(report.checkedUrl).toBe(`https://site.test${BLOAT_PAGE_PATH}`);
    expect(s.redirects).toHaveLength(5);
    expect(s.robotsTxt.sitemaps).toHaveLength(REPORT_CAPS.sitemaps);
    expectCut(s.robotsTxt.sitemaps[0], REPORT_CAPS.url);
    expect(s.robotsTxt.contentSignals).toHaveLength(REPORT_CAPS.contentSignals);
    expectCut(s.robotsTxt.contentSignals[0], REPORT_CAPS.quote);
    expect(s.contentUsage).toHaveLength(REPORT_CAPS.contentUsage);
    expectCut(s.contentUsage.at(-1)!.userAgent, REPORT_CAPS.token);
    expect(s.llmsTxtLinks.links).toHaveLength(REPORT_CAPS.llmsLinks);
    expectCut(s.llmsTxtLinks.links[0].url, REPORT_CAPS.url);
    expectCut(s.markdown.alternate, REPORT_CAPS.url);
    expectCut(s.licensing.tdmPolicy, REPORT_CAPS.url);
    expectCut(s.licensing.rslLicense, REPORT_CAPS.url);

    const googlebot = crawlers.find((c) => c.token === 'Googlebot')!;
    expect(googlebot.allowed).toBe(false);
    expectCut(googlebot.rule, REPORT_CAPS.quote);
    expect(googlebot.rule!.startsWith(`Disallow: ${BLOAT_PAGE_PATH.slice(0, 100)}`)).toBe(true);
    const quoting = findings.find((f) => f.id === 'training-crawlers-blocked');
    expectCut(quoting?.observed, REPORT_CAPS.observed);
  });

  it('publishes bounds that add up to less than 768 KB for any report, whatever the site serves', () => {
    const bound = jsonBound(publishedReportSchema());
    expect(bound).toBeLessThan(REPORT_MAX_BYTES);
    expect(Buffer.byteLength(JSON.stringify(report))).toBeLessThanOrEqual(bound);
  });

  it('publishes the caps in the OpenAPI document', () => {
    const schema = publishedReportSchema();
    const page = schema.properties!.page.properties!;
    const site = schema.properties!.site.properties!;
    expect(page.title.anyOf).toContainEqual({ type: 'string', maxLength: REPORT_CAPS.title });
    expect(page.metaDescription.anyOf).toContainEqual({ type: 'string', maxLength: REPORT_CAPS.description });
    expect(page.jsonLd.properties!.types).toMatchObject({ type: 'array', maxItems: REPORT_CAPS.jsonLdTypes, items: { type: 'string', maxLength: REPORT_CAPS.token } });
    expect(site.redirects).toMatchObject({ maxItems: 5, items: { properties: { url: { maxLength: REPORT_CAPS.url } } } });
    expect(site.robotsTxt.properties!.sitemaps).toMatchObject({ maxItems: REPORT_CAPS.sitemaps, items: { maxLength: REPORT_CAPS.url } });
    expect(schema.properties!.crawlers).toMatchObject({ maxItems: 16, items: { properties: { rule: { anyOf: [{ type: 'string', maxLength: REPORT_CAPS.quote }, { type: 'null' }] } } } });
    expect(schema.properties!.findings).toMatchObject({ maxItems: REPORT_CAPS.findings, items: { properties: { observed: { maxLength: REPORT_CAPS.observed } } } });
  });
});

describe('capReport', () => {
  it('returns a report within its bounds unchanged, and cuts without splitting a surrogate pair', () => {
    const small = { checkedUrl: 'https://site.test/', page: { title: 'Hi', metaDescription: null }, crawlers: [], findings: [] };
    expect(capReport(small)).toEqual(small);
    expect(cutString('abcdef', 4)).toBe('a…');
    expect(cutString('abcd', 4)).toBe('abcd');
    expect(cutString('a😀bcd', 6)).toBe('a…');
    expect(cutString('😀😀😀', 12)).toBe('😀😀😀');
    // Escapes count as JSON writes them: a quote 2 bytes, a control character 6.
    expect(cutString('"'.repeat(3), 6)).toBe('"'.repeat(3));
    expect(cutString('"'.repeat(4), 6)).toBe('"…');
    expect(cutString('\u0001', 6)).toBe('\u0001');
    expect(cutString('\u0001x', 6)).toBe('…');
    expect(capReport({ page: { title: '😀'.repeat(600) } }).page.title).toBe('😀'.repeat(127) + '…');
  });
});
