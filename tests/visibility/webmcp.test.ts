// WebMCP tools read through the real renderer (Chromium): registered by script (the current
// document.modelContext and the earlier navigator.modelContext), declared on a form, none, and invalid; each
// recorded, bounded, and never called. Plus the checks of a recorded input schema, without a browser.
import { afterEach, describe, expect, it } from 'vitest';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { schemaProblem, webMcpOf, WEBMCP_MAX_TOOLS } from '@/lib/checks/visibility/webmcp';
import { chromiumSettings } from '../support/chromium';
import { renderWithChromium } from '../support/chromium-suite';
import { startFixtureSite, type FixtureRoute, type FixtureSite } from './fixture-site';
import { serverRenderedRoutes, webMcpDeclarativeRoutes, webMcpFloodRoutes, webMcpImperativeRoutes, webMcpInvalidRoutes } from './render-site';

const settings = chromiumSettings();
const sites: FixtureSite[] = [];

renderWithChromium(settings);
afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

async function check(routes: Record<string, FixtureRoute>) {
  const site = await startFixtureSite(routes);
  sites.push(site);
  const result = await checkVisibility('https://site.test/', { hostMap: site.hostMap(['site.test']) });
  expect(result.report.page.rendering.state).toBe('rendered');
  return { ...result, site };
}

const finding = <F extends { id: string }>(findings: F[], id: string) => findings.find((f) => f.id === id);

describe.skipIf(!settings)('site.agentSurfaces.webMcp through the renderer (Chromium)', () => {
  it('records tools registered by script, through document.modelContext and navigator.modelContext, without calling any', async () => {
    const { report, site } = await check(webMcpImperativeRoutes());
    expect(report.site.agentSurfaces.webMcp).toEqual({
      status: 'found',
      source: 'imperative',
      imperativeObserved: true,
      tools: [
        { name: 'legacy_cart', description: 'Shows the cart', source: 'imperative', inputSchemaValid: true, problem: null },
        { name: 'search-products', description: 'Search the catalogue by keyword', source: 'imperative', inputSchemaValid: true, problem: null },
        { name: 'get.page.title', description: 'The page title', source: 'imperative', inputSchemaValid: true, problem: null },
      ],
      toolCount: 3,
      forms: [],
      formCount: 0,
    });
    expect(finding(report.findings, 'webmcp-tools')).toEqual({
      id: 'webmcp-tools',
      severity: 'info',
      rubric: null,
      pointsLost: 0,
      observed: '3 WebMCP tools (registered by script: legacy_cart, search-products, get.page.title)',
      why: expect.stringContaining('WebMCP tools let an agent'),
      fix: expect.any(String),
    });
    expect(finding(report.findings, 'webmcp-tool-invalid')).toBeUndefined();
    // The page went on as in a browser with WebMCP (its registerTool promise resolved) and no tool ran.
    expect(site.requests).not.toContain('/executed');
  });

  it('reads a form declared as a tool (toolname, tooldescription), and the other forms a tool could drive', async () => {
    const { report } = await check(webMcpDeclarativeRoutes());
    expect(report.site.agentSurfaces.webMcp).toEqual({
      status: 'found',
      source: 'declarative',
      imperativeObserved: true,
      tools: [{ name: 'search-cars', description: 'Perform a car make/model search', source: 'declarative', inputSchemaValid: true, problem: null }],
      toolCount: 1,
      forms: [
        { toolName: 'search-cars', action: 'https://site.test/cars', method: 'post', fields: ['make', 'model', 'year'], fieldCount: 3 },
        { toolName: null, action: 'https://site.test/search', method: 'get', fields: ['q'], fieldCount: 1 },
      ],
      formCount: 2,
    });
    expect(finding(report.findings, 'webmcp-tools')?.observed).toBe('1 WebMCP tool (declared on forms: search-cars)');
  });

  it('reads missing, with no finding, on a page that offers no tools', async () => {
    const { report } = await check(serverRenderedRoutes());
    expect(report.site.agentSurfaces.webMcp).toEqual({ status: 'missing', source: null, imperativeObserved: true, tools: [], toolCount: 0, forms: [], formCount: 0 });
    expect(report.findings.filter((f) => f.id.startsWith('webmcp'))).toEqual([]);
  });

  it('lists tools a WebMCP browser refuses or an agent cannot call first, in one medium finding that costs no points', async () => {
    const { report } = await check(webMcpInvalidRoutes());
    const webMcp = report.site.agentSurfaces.webMcp!;
    expect(webMcp.toolCount).toBe(5);
    expect(webMcp.tools).toEqual([
      { name: 'lookup', description: 'Looks things up', source: 'imperative', inputSchemaValid: false, problem: 'has an input schema whose type is "string", not "object"' },
      { name: 'order', description: 'Orders', source: 'imperative', inputSchemaValid: false, problem: 'has an input schema that requires "qty", which it does not define' },
      { name: 'has space', description: 'Bad name', source: 'imperative', inputSchemaValid: true, problem: 'has a name with characters other than ASCII letters, digits, "_", "-" and "."' },
      { name: 'circular', description: 'Circular schema', source: 'imperative', inputSchemaValid: false, problem: 'has an input schema that cannot be turned into JSON (serialising it throws)' },
    ]);
    const invalid = finding(report.findings, 'webmcp-tool-invalid');
    expect(invalid).toMatchObject({ severity: 'medium', rubric: null, pointsLost: 0 });
    expect(invalid!.observed).toBe(
      'tool "lookup" has an input schema whose type is "string", not "object"; tool "order" has an input schema that requires "qty", which it does not define; ' +
        'tool "has space" has a name with characters other than ASCII letters, digits, "_", "-" and "."; tool "circular" has an input schema that cannot be turned into JSON (serialising it throws)',
    );
    expect(finding(report.findings, 'webmcp-tools')).toMatchObject({ severity: 'info' });
  });

  it('keeps at most 50 tools and counts the rest; the report lists 4, each cut to its cap', async () => {
    const { report } = await check(webMcpFloodRoutes(400));
    const webMcp = report.site.agentSurfaces.webMcp!;
    expect(webMcp.toolCount).toBe(400);
    expect(webMcp.tools.map((t) => t.name)).toEqual(['tool0', 'tool1', 'tool2', 'tool3']);
    expect(webMcp.tools[0].description).toBe(`${'x'.repeat(93)}…`) // 96 bytes with the 3-byte mark;
  });
});

describe('webMcpOf and schemaProblem (no browser)', () => {
  const tool = (inputSchema: string | null, schemaError: string | null = null) => ({ name: 't', description: 'd', inputSchema, schemaError });

  it.each([
    [null, [true, null]],
    ['{"type":"object","properties":{"a":{"type":"string"},"b":true},"required":["a"]}', [true, null]],
    ['[1]', [false, 'has an input schema that is not a JSON Schema object']],
    ['{"properties":{}}', [false, 'has an input schema whose type is missing, not "object"']],
    ['{"type":"object","properties":{"a":1}}', [false, 'has input schema "properties" that are not a map of schemas']],
    ['{"type":"object","required":"a"}', [false, 'has an input schema whose "required" is not a list of names']],
    ['{"type":"object","required":["a"]}', [false, 'has an input schema that requires "a", which it does not define']],
    ['{"type":', [false, 'has an input schema that is not JSON']],
    [`{"type":"object","description":"${'x'.repeat(20_000)}"}`, [null, null]],
  ] as const)('schemaProblem, case %#', (schema, expected) => {
    expect(schemaProblem(tool(schema))).toEqual(expected);
  });

  it('counts registrations past the cap and lists a tool without a name or description as refused', () => {
    const webMcp = webMcpOf({ native: false, tools: [{ name: null, description: null, inputSchema: null, schemaError: null }], toolsDropped: WEBMCP_MAX_TOOLS, forms: [], formCount: 0 });
    expect(webMcp).toMatchObject({ status: 'found', toolCount: WEBMCP_MAX_TOOLS + 1, tools: [{ name: '', problem: 'has no name' }] });
  });

  it('says imperative tools were not observed when the browser had WebMCP built in', () => {
    expect(webMcpOf({ native: true, tools: [], toolsDropped: 0, forms: [], formCount: 0 })).toMatchObject({ status: 'missing', imperativeObserved: false });
  });
});
