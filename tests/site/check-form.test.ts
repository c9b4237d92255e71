// The browser side of /check, as plain functions: the readiness form's messages in words, the mapping of
// the server's JSON paths to fields, reading a report's permanent address from the Link header, and the
// checks' tabs.
import { describe, expect, it } from 'vitest';
import { fieldOfPath, validateReadiness } from '@/components/checks/readiness/Form';
import { reportPathFrom } from '@/components/check/session';
import { checksShown } from '@/components/checks';
import { validateAddress } from '@/components/checks/ai-visibility/Form';
import { endpointRequest, validateEndpointForm } from '@/components/checks/payment-endpoint/Form';
import { endpointCheck } from '@/lib/checks/payment-endpoint/entry';
import { MAX_ADDRESS_LENGTH } from '@/lib/checks/visibility/published';
import { checks } from '@/lib/checks/registry';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { MAX_URL_LENGTH, normalizeTargetUrl } from '@/lib/outbound/target-url';
import { CAPABILITY_KEYS } from '@/lib/checks/readiness/schema';

type Form = Parameters<typeof validateReadiness>[0];
const form = (patch: Partial<Form> = {}): Form => ({
  name: 'Checkout agent',
  intendedUsers: 'agents',
  targetEnvironment: 'production',
  capabilities: Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, { status: 'implemented', evidence: '' }])) as Form['capabilities'],
  ...patch,
});

describe('validateReadiness', () => {
  it('accepts a complete form', () => {
    expect(validateReadiness(form())).toEqual({});
  });

  it('says what is missing in words, one message per field', () => {
    const empty = form({ name: '  ', intendedUsers: '', targetEnvironment: '' });
    empty.capabilities.idempotency = { status: '', evidence: '' };
    expect(validateReadiness(empty)).toEqual({
      name: 'Required: name the workflow.',
      intendedUsers: 'Required: choose who uses the workflow.',
      targetEnvironment: 'Required: choose sandbox or production.',
      'idempotency-status': 'Required: choose a status.',
    });
  });

  it('counts evidence lines and their length as the API does', () => {
    const f = form({ name: 'x'.repeat(121) });
    f.capabilities.machine_discovery = { status: 'partial', evidence: 'a\nb\n\nc\nd\ne\nf' };
    f.capabilities.idempotency = { status: 'partial', evidence: 'y'.repeat(241) };
    expect(validateReadiness(f)).toEqual({
      name: 'Too long: at most 120 characters (now 121).',
      'machine_discovery-evidence': 'Too many lines: at most 5 (now 6).',
      'idempotency-evidence': 'A line is too long: at most 240 characters each.',
    });
  });
});

it('fieldOfPath maps the API JSON paths to the form fields', () => {
  expect(fieldOfPath('$.workflow.name')).toBe('name');
  expect(fieldOfPath('$.capabilities.idempotency.status')).toBe('idempotency-status');
  expect(fieldOfPath('$.capabilities.idempotency.evidence[2]')).toBe('idempotency-evidence');
  expect(fieldOfPath('$.capabilities.idempotency')).toBe('idempotency-status');
  expect(fieldOfPath('$')).toBeNull();
});

it('reportPathFrom reads the report page from the Link header of a paid answer', () => {
  const id = `rep_${'a'.repeat(32)}`;
  expect(reportPathFrom(`</api/reports/${id}>; rel="related"`)).toBe(`/reports/${id}`);
  expect(reportPathFrom(null)).toBeNull();
  expect(reportPathFrom('</elsewhere>; rel="related"')).toBeNull();
});

describe('validateAddress: the address form refuses nothing the API accepts', () => {
  it('sends a bare address as it is; the API checks it over https, as it does a Bearer call', () => {
    expect(validateAddress('shop.example.com/pricing')).toBeNull();
    expect(normalizeTargetUrl('shop.example.com/pricing').href).toBe('https://shop.example.com/pricing');
  });

  it.each([
    'shop.example.com/pricing', 'https://shop.example.com/', 'http://shop.example.com/', '//shop.example.com/a', 'shop.example.com:443/x',
    '  shop.example.com  ', 'SHOP.Example.COM/Path?q=1#frag', `shop.example.com/${'a'.repeat(MAX_URL_LENGTH - 'shop.example.com/'.length)}`,
  ])('accepts %s, which the API accepts', (input) => {
    expect(() => visibilityCheck.precheck!({ url: input.trim() })).not.toThrow();
    expect(validateAddress(input)).toBeNull();
  });

  it('refuses, in words, only what the API refuses too: nothing, or longer than the API reads', () => {
    expect(MAX_ADDRESS_LENGTH).toBe(MAX_URL_LENGTH);
    expect(validateAddress('   ')).toBe('Required: enter the address of a page.');
    expect(() => normalizeTargetUrl('   ')).toThrow('The address is empty.');
    const long = `shop.example.com/${'a'.repeat(MAX_URL_LENGTH)}`;
    expect(validateAddress(long)).toBe(`Too long: at most ${MAX_URL_LENGTH} characters (now ${long.length}).`);
    expect(() => normalizeTargetUrl(long)).toThrow(`The address is longer than ${MAX_URL_LENGTH} characters.`);
  });
});

it('checksShown gives the check page one tab per check in the registry, visibility first', () => {
  expect(checksShown(checks().map((c) => c.id)).map((f) => [f.report.id, f.report.label])).toEqual([
    ['ai-visibility', 'AI Visibility'],
    ['readiness', 'Payment Readiness'],
    ['payment-endpoint', 'Payment endpoint'],
  ]);
  expect(checksShown(['readiness']).map((f) => f.report.id)).toEqual(['readiness']);
});

describe('the endpoint form: what it refuses before sending, and what it sends', () => {
  const endpointForm = (patch: Partial<Parameters<typeof validateEndpointForm>[0]> = {}) => ({
    url: 'api.example.com/paid', method: 'POST' as const, body: '', mcpUrl: '', mcpTool: '', paidRoundTrip: false, ...patch,
  });

  it('accepts an address alone, and sends what the API accepts', () => {
    expect(validateEndpointForm(endpointForm())).toEqual({});
    const sent = endpointRequest(endpointForm({ body: '{"query": "teapots"}', mcpUrl: 'api.example.com/mcp', mcpTool: 'search', paidRoundTrip: true }));
    expect(sent).toEqual({ url: 'api.example.com/paid', method: 'POST', body: { query: 'teapots' }, mcp: { url: 'api.example.com/mcp', tool: 'search' }, paidRoundTrip: true });
    expect(endpointCheck.input.parse(sent)).toEqual(sent);
    expect(endpointRequest(endpointForm({ method: 'GET' }))).toEqual({ url: 'api.example.com/paid', method: 'GET', paidRoundTrip: false });
  });

  it('says in words what is wrong: no address, a body that is not JSON or too large, a body on GET, half an MCP pair', () => {
    expect(validateEndpointForm(endpointForm({ url: ' ', body: '{"a":', mcpUrl: 'api.example.com/mcp' }))).toEqual({
      url: 'Required: enter the address of the paid endpoint.',
      body: expect.stringMatching(/^Not JSON: /),
      mcpTool: 'Required with an MCP endpoint: name the paid tool to check.',
    });
    expect(validateEndpointForm(endpointForm({ body: JSON.stringify({ a: 'x'.repeat(17_000) }) }))).toEqual({ body: 'Too large: at most 16 KB of JSON (now 17 KB).' });
    expect(validateEndpointForm(endpointForm({ method: 'GET', body: '{}', mcpTool: 'search' }))).toEqual({
      body: 'A GET request carries no body: clear it, or choose POST.',
      mcpUrl: 'Required with a tool: enter the MCP endpoint it is served at.',
    });
  });

  it('refuses a body the API refuses for size, and no smaller one', () => {
    const atLimit = JSON.stringify({ a: 'x'.repeat(16 * 1024 - 8) });
    expect(atLimit.length).toBe(16 * 1024);
    expect(validateEndpointForm(endpointForm({ body: atLimit }))).toEqual({});
    expect(() => endpointCheck.input.parse({ url: 'api.example.com/paid', body: JSON.parse(atLimit) })).not.toThrow();
    expect(() => endpointCheck.input.parse({ url: 'api.example.com/paid', body: JSON.parse(atLimit.replace('"}', 'x"}')) })).toThrow();
    expect(validateEndpointForm(endpointForm({ body: atLimit.replace('"}', 'x"}') })).body).toBe('Too large: at most 16 KB of JSON (now 17 KB).');
  });
});
