import { Challenge, Mcp } from 'mppx';
import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import type { PaymentRequired } from '@x402/core/types';
import { InitializeResultSchema, ListToolsResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { field, type ProbeContext, type ProbeItem } from './context';
import type { ProbeAnswer } from './session';
import type { Evidence, Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES } from './sources';

// The MCP item: what an agent meets when it reaches the paid resource as an MCP tool. It speaks JSON-RPC over
// POST itself rather than through an SDK client, because the evidence is the wire: the v2 SDK client rejects
// x402's `payment_required` result, the v1 client validates an isError result's structuredContent against the
// tool's outputSchema, and both send requests of their own (the request budget is the check's, per domain).
// A run sends at most eight requests: initialize (twice when /api/mcp is not MCP), notifications/initialized,
// tools/list, one unpaid tools/call on MCP 2025-11-25, server/discover, and on MCP 2026-07-28 one unpaid
// tools/call without x402's extension and one declaring it.

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
/** x402's MCP extension: a 2026-07-28 client declaring it is answered `resultType: "payment_required"`. */
const X402_EXTENSION = 'org.x402/payment';
const PAYMENT_REQUIRED_RESULT = 'payment_required';
const CLIENT_INFO = { name: 'paid-agent-checks-endpoint-check', version: '1.0.0' };
/** Where a seller's MCP endpoint is looked for when the buyer names none: the common paths, on the endpoint's own origin. */
const MCP_PATHS = ['/api/mcp', '/mcp'];
const TEXT_CAP = 2000;

// A tool costs money when its words say so: a price (an amount with its currency, or the word) or "paid".
const COSTS_MONEY = /\$\s?\d|\b\d+(?:\.\d+)?\s?(?:USD|USDC|EUR|cents?)\b|\b(?:price[sd]?|paid|costs?|fee|charged?)\b/i;


const AGAIN = 'Run the Agent Payment Endpoint Check again with the same endpoint (and the same mcp tool, if you named one)';

const findings = {
  'mcp-handshake-failed': {
    title: 'The MCP endpoint does not complete a handshake',
    severity: 'high',
    points: 10,
    why: 'An agent that cannot initialise (MCP 2025-11-25) or discover (MCP 2026-07-28) the server, or list its tools, never reaches the paid tool.',
    fix: 'Answer `initialize` with an InitializeResult (protocolVersion, capabilities, serverInfo), or `server/discover` for MCP 2026-07-28, and `tools/list` with the tools, as the MCP specification defines them.',
    verify: ['Send `initialize` then `tools/list` with the MCP Inspector or an MCP SDK client, and see the tools listed.', `${AGAIN}: the MCP item lists the tool.`],
    references: [SOURCES.mcp, SOURCES.mcp2026],
  },
  'mcp-tool-not-listed': {
    title: 'The named MCP tool is not in tools/list',
    severity: 'high',
    points: 10,
    why: 'Agents call the tools the server lists; a paid tool missing from tools/list is never found.',
    fix: 'List the paid tool in `tools/list` under the name agents are given, with its input schema and its price in the description.',
    verify: ['Call `tools/list` and find the tool by name.', `${AGAIN}.`],
    references: [SOURCES.mcp],
  },
  'mcp-no-payment-binding': {
    title: 'An unpaid MCP tool call gets no payment binding',
    severity: 'high',
    points: 8,
    why: "An agent calling the paid tool unpaid must learn how to pay in-band: MPP's JSON-RPC error -32042 with the challenges in `data`, or x402's payment-required tool result. A plain error or result leaves it stuck, or gives the work away.",
    fix: "Answer an unpaid `tools/call` of a paid tool with JSON-RPC error -32042 whose `data.challenges` are the MPP challenges (as mppx's MCP transport does), or with x402's tool result: `isError: true` and the PaymentRequired in `content[0].text` (and optionally `structuredContent`).",
    verify: ['Call the tool with no payment in `_meta` and read the JSON-RPC error -32042 (or the isError result carrying `x402Version` and `accepts`).', `${AGAIN}: the MCP item names the binding it got.`],
    references: [SOURCES.mppMcp, SOURCES.x402Mcp],
  },
  'mcp-payment-binding-invalid': {
    title: "The MCP payment binding's terms do not validate",
    severity: 'high',
    points: 6,
    why: 'A client reads the terms with its protocol library; challenges that mppx cannot parse or a PaymentRequired that fails x402 v2 validation cannot be paid.',
    fix: "Send in -32042's `data.challenges` MPP challenge objects (id, realm, method, intent, request), and in x402's bindings a v2 PaymentRequired (`x402Version: 2`, `resource`, `accepts`), built with mppx and @x402/core rather than by hand.",
    verify: ["Validate the challenges with mppx's `Challenge.Schema` and the PaymentRequired with @x402/core's `PaymentRequiredV2Schema`.", `${AGAIN}.`],
    references: [SOURCES.mppMcp, SOURCES.x402Mcp],
  },
  'mcp-x402-extension-ignored': {
    title: "MCP 2026-07-28: a call declaring org.x402/payment is not answered payment_required",
    severity: 'medium',
    points: 3,
    why: "The server declares x402's MCP extension in server/discover, so a client declaring it expects an unpaid call answered `resultType: \"payment_required\"` with the PaymentRequired; it reads nothing else as the terms.",
    fix: 'When a 2026-07-28 tools/call declares `org.x402/payment` in its client capabilities, answer an unpaid call with `{ resultType: "payment_required", paymentRequired }`; or stop declaring the extension in server/discover.',
    verify: ['Send a 2026-07-28 tools/call whose `_meta["io.modelcontextprotocol/clientCapabilities"]` declares `extensions: { "org.x402/payment": {} }`, unpaid, and read `resultType`.', `${AGAIN}.`],
    references: [SOURCES.x402Mcp, SOURCES.mcp2026],
  },
  'mcp-payment-required-unasked': {
    title: 'An MCP client that did not declare org.x402/payment is sent a payment_required result',
    severity: 'medium',
    points: 3,
    why: "`payment_required` is the extension's own result type: an MCP client that did not declare the extension does not know it (the MCP SDK client rejects it), so it never sees the terms.",
    fix: "Send `resultType: \"payment_required\"` only to a 2026-07-28 call declaring `org.x402/payment`; answer others with MPP's -32042 or x402's tool-result binding.",
    verify: ['Send an unpaid tools/call without the extension in its client capabilities and see -32042 or an isError tool result.', `${AGAIN}.`],
    references: [SOURCES.x402Mcp, SOURCES.mcp2026],
  },
  'mcp-tool-price-unstated': {
    title: "The paid MCP tool's description does not say it costs money",
    severity: 'low',
    points: 2,
    why: 'A model choosing tools reads their descriptions: one that does not say the tool is paid (and its price) is called by surprise, and a budget-aware agent cannot weigh it.',
    fix: 'Say the price in the tool\'s description or title, e.g. "Price: 0.10 USD per call", and how an unpaid call is answered.',
    verify: ['Read the tool in `tools/list`: its description or title names the price.', `${AGAIN}.`],
    references: [SOURCES.mcp],
  },
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof findings;

const mcpSpec: ItemSpec = {
  id: 'mcp',
  title: 'MCP',
  points: 10,
  verifies: "The MCP endpoint initialises, lists the tool, says it costs money, and an unpaid call gets a payment binding: MPP's -32042, x402's tool result, and on 2026-07-28 the org.x402/payment extension.",
  findings,
};

/** One JSON-RPC exchange: the HTTP answer, and the JSON-RPC response read from it (JSON or an SSE stream). */
interface Rpc {
  answer: ProbeAnswer;
  status: number | null;
  message: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
  /** Why no message could be read. */
  unread?: string;
}

/** A request the budget or the network did not let through: the item cannot be tested further. */
class NotSent extends Error {}

async function rpc(ctx: ProbeContext, url: URL, purpose: string, body: Record<string, unknown>, headers: Record<string, string>): Promise<Rpc> {
  const answer = await ctx.http.send({ purpose, method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), accept: 'application/json, text/event-stream' });
  if (answer.kind !== 'answer') return { answer, status: null, message: null, unread: answer.message };
  const { response } = answer;
  const candidates = /^text\/event-stream/i.test(response.header('content-type') ?? '') ? sseData(response.body) : [response.body];
  for (const text of candidates) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (field(parsed, 'jsonrpc') === '2.0' && (field(parsed, 'result') !== undefined || field(parsed, 'error') !== undefined) && (body.id === undefined || field(parsed, 'id') === body.id)) {
        return { answer, status: response.status, message: parsed as Rpc['message'] };
      }
    } catch {
      // Not JSON: not a JSON-RPC response.
    }
  }
  return { answer, status: response.status, message: null, unread: `no JSON-RPC response in the ${response.status} answer (${response.header('content-type') ?? 'no content-type'})` };
}

/** Each SSE event's data (its `data:` lines joined): Streamable HTTP may answer a POST as a one-event stream. No parser ships as a dependency, and this is all of it the answer needs. */
function sseData(stream: string): string[] {
  return stream
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter((data) => data !== '');
}

const clip = (text: string) => (text.length > TEXT_CAP ? `${text.slice(0, TEXT_CAP)}…` : text);

/** What an unpaid tool call was answered with, read as each binding defines it. */
type Binding =
  | { kind: 'mpp'; challenges: Challenge.Challenge[]; x402: PaymentRequired | null }
  | { kind: 'x402-result'; paymentRequired: PaymentRequired; where: 'structuredContent' | 'content[0].text' }
  | { kind: 'x402-extension'; paymentRequired: PaymentRequired }
  | { kind: 'invalid'; observed: string }
  | { kind: 'none'; observed: string };

function validPaymentRequired(value: unknown): PaymentRequired | string {
  const parsed = PaymentRequiredV2Schema.safeParse(value);
  return parsed.success ? (parsed.data as PaymentRequired) : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** x402's tool-result binding: the PaymentRequired in structuredContent, or in content[0].text (bare or in its `x402/error` wrapper). */
function x402InResult(result: unknown): { value: unknown; where: 'structuredContent' | 'content[0].text' } | null {
  const structured = field(result, 'structuredContent');
  if (field(structured, 'accepts') !== undefined) return { value: structured, where: 'structuredContent' };
  const content = field(result, 'content');
  const text = Array.isArray(content) ? field(content[0], 'text') : undefined;
  if (typeof text !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    const wrapped = field(field(parsed, 'x402/error'), 'data');
    const value = wrapped ?? parsed;
    return field(value, 'accepts') !== undefined ? { value, where: 'content[0].text' } : null;
  } catch {
    return null;
  }
}

function bindingOf(rpcAnswer: Rpc): Binding {
  const { message } = rpcAnswer;
  if (!message) return { kind: 'none', observed: rpcAnswer.unread ?? 'no answer' };
  if (message.error) {
    const { code, data } = message.error;
    if (code !== Mcp.paymentRequiredCode) return { kind: 'none', observed: `JSON-RPC error ${String(code)}: ${clip(String(message.error.message ?? ''))}` };
    const raw = field(data, 'challenges');
    if (!Array.isArray(raw) || raw.length === 0) return { kind: 'invalid', observed: 'error -32042 without data.challenges' };
    const challenges: Challenge.Challenge[] = [];
    for (const [i, c] of raw.entries()) {
      const parsed = Challenge.Schema.safeParse(c);
      if (!parsed.success) return { kind: 'invalid', observed: `-32042 data.challenges[${i}]: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}` };
      challenges.push(parsed.data as Challenge.Challenge);
    }
    const x402 = field(data, 'x402') === undefined ? null : validPaymentRequired(field(data, 'x402'));
    if (typeof x402 === 'string') return { kind: 'invalid', observed: `-32042 data.x402: ${x402}` };
    return { kind: 'mpp', challenges, x402 };
  }
  const result = message.result;
  if (field(result, 'resultType') === PAYMENT_REQUIRED_RESULT) {
    const required = validPaymentRequired(field(result, 'paymentRequired'));
    return typeof required === 'string' ? { kind: 'invalid', observed: `payment_required result's paymentRequired: ${required}` } : { kind: 'x402-extension', paymentRequired: required };
  }
  const found = field(result, 'isError') === true ? x402InResult(result) : null;
  if (!found) return { kind: 'none', observed: field(result, 'isError') === true ? 'an isError tool result without a PaymentRequired' : 'a tool result, not marked isError, with no payment terms' };
  const required = validPaymentRequired(found.value);
  return typeof required === 'string' ? { kind: 'invalid', observed: `isError result's ${found.where}: ${required}` } : { kind: 'x402-result', paymentRequired: required, where: found.where };
}

/** A binding as evidence: the decoded terms an agent would pay from. */
function bindingEvidence(binding: Binding): unknown {
  const x402 = (p: PaymentRequired) => ({ resource: p.resource?.url, accepts: p.accepts.map((a) => ({ scheme: a.scheme, network: a.network, amount: a.amount, asset: a.asset, payTo: a.payTo })) });
  switch (binding.kind) {
    case 'mpp':
      return {
        error: Mcp.paymentRequiredCode,
        challenges: binding.challenges.map((c) => ({ id: c.id, realm: c.realm, method: c.method, intent: c.intent, expires: c.expires, request: c.request })),
        ...(binding.x402 ? { x402: x402(binding.x402) } : {}),
      };
    case 'x402-result':
      return { isError: true, in: binding.where, paymentRequired: x402(binding.paymentRequired) };
    case 'x402-extension':
      return { resultType: PAYMENT_REQUIRED_RESULT, paymentRequired: x402(binding.paymentRequired) };
    default:
      return { observed: binding.observed };
  }
}

const bindingWords = (b: Binding): string =>
  b.kind === 'mpp'
    ? `MPP's -32042 (${b.challenges.map((c) => c.method).join(', ')})${b.x402 ? ' with the x402 terms in data.x402' : ''}`
    : b.kind === 'x402-result'
      ? `x402's isError tool result (terms in ${b.where})`
      : b.kind === 'x402-extension'
        ? "x402's payment_required result"
        : b.observed;

function evidenceOf(url: URL, what: string, r: Rpc, answer: unknown): Evidence {
  return { request: `POST ${url.href} ${what}`, status: r.status, ...(r.message || answer !== undefined ? { answer: answer ?? r.message } : {}), ...(r.unread ? { note: clip(r.unread) } : {}) };
}

/**
 * The arguments of the unpaid call: the endpoint's own request body when it is a JSON object (a paid tool
 * mirroring a REST route takes the same input), else the tool's input schema example, else none.
 */
function argumentsFor(ctx: ProbeContext, tool: Tool): Record<string, unknown> {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  try {
    const body: unknown = ctx.body === undefined ? undefined : JSON.parse(ctx.body);
    if (isObject(body) && Object.keys(body).length > 0) return body;
  } catch {
    // The body is not JSON: fall back to the schema's example.
  }
  const examples = field(tool.inputSchema, 'examples');
  const example = field(tool.inputSchema, 'example') ?? (Array.isArray(examples) ? examples[0] : undefined);
  return isObject(example) ? example : {};
}

/**
 * The tool the endpoint is sold as: the one named, else the only tool whose description, annotations or `_meta`
 * name the endpoint's path (a seller mirroring REST routes as tools says which route a tool is).
 */
function toolFor(tools: readonly Tool[], named: string | undefined, path: string): { tool: Tool } | { missing: string } {
  if (named) {
    const tool = tools.find((t) => t.name === named);
    return tool ? { tool } : { missing: `the tool "${named}" is not among the ${tools.length} listed (${tools.map((t) => t.name).join(', ')})` };
  }
  const mentions = new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/-])`);
  const matching = tools.filter((t) => mentions.test([t.description ?? '', JSON.stringify(t.annotations ?? {}), JSON.stringify(t._meta ?? {})].join('\n')));
  if (matching.length === 1) return { tool: matching[0]! };
  return { missing: matching.length === 0 ? `no listed tool names ${path} in its description, annotations or _meta` : `${matching.length} tools name ${path} (${matching.map((t) => t.name).join(', ')})` };
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  const evidence: Evidence[] = [];
  const faults: Fault[] = [];
  const fault = (id: FindingId, observed: string) => faults.push({ id, observed });
  const outcome = (why: string): ItemOutcome => {
    const worst = faults.some((f) => ['critical', 'high', 'medium'].includes(findings[f.id as FindingId].severity));
    return { state: faults.length === 0 ? 'pass' : worst ? 'fail' : 'warn', why, evidence, faults };
  };
  const named = ctx.input.mcp;
  const required = (r: Rpc): Rpc => {
    if (r.answer.kind !== 'answer') throw new NotSent(r.answer.message);
    return r;
  };

  try {
    // 1. Where: the MCP endpoint named, else the first common path on the endpoint's origin that speaks JSON-RPC.
    let endpoint: URL | null = null;
    let init: Rpc | null = null;
    for (const url of named ? [new URL(named.url)] : MCP_PATHS.map((p) => new URL(p, ctx.url.origin))) {
      const r = await rpc(ctx, url, 'MCP initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO } }, {});
      const result = InitializeResultSchema.safeParse(r.message?.result);
      evidence.push(evidenceOf(url, `JSON-RPC initialize (protocolVersion ${LEGACY})`, r, result.success ? { protocolVersion: result.data.protocolVersion, serverInfo: result.data.serverInfo, capabilities: result.data.capabilities } : r.message?.error));
      if (r.answer.kind !== 'answer' && named) throw new NotSent(r.answer.message);
      if (r.message || named) {
        endpoint = url;
        init = r;
        break;
      }
    }
    if (!endpoint || !init) return { state: 'not-applicable', why: `No MCP endpoint was named and none answers at ${MCP_PATHS.join(' or ')} on ${ctx.url.origin}.`, evidence, faults };

    // 2. MCP 2025-11-25: initialize → notifications/initialized → tools/list, the session id kept if one was given.
    const initialized = InitializeResultSchema.safeParse(init.message?.result);
    const legacyHeaders: Record<string, string> = {};
    let tools: Tool[] | null = null;
    if (initialized.success && init.answer.kind === 'answer') {
      legacyHeaders['mcp-protocol-version'] = initialized.data.protocolVersion;
      const session = init.answer.response.header('mcp-session-id');
      if (session) legacyHeaders['mcp-session-id'] = session;
      const note = required(await rpc(ctx, endpoint, 'MCP notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }, legacyHeaders));
      evidence.push({ request: `POST ${endpoint.href} notifications/initialized`, status: note.status });
      const list = required(await rpc(ctx, endpoint, 'MCP tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, legacyHeaders));
      const parsed = ListToolsResultSchema.safeParse(list.message?.result);
      tools = parsed.success ? (parsed.data.tools as Tool[]) : null;
      evidence.push(evidenceOf(endpoint, 'tools/list', list, tools ? { tools: tools.map((t) => t.name) } : list.message?.error));
    }

    // 3. MCP 2026-07-28: server/discover with the per-request envelope (no initialize).
    const envelope = (capabilities: Record<string, unknown>) => ({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    });
    const modernHeaders = (method: string, name?: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
    const discover = required(await rpc(ctx, endpoint, 'MCP server/discover', { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: envelope({}) } }, modernHeaders('server/discover')));
    const versions = field(discover.message?.result, 'supportedVersions');
    const modern = Array.isArray(versions) && versions.includes(MODERN);
    const extensions = field(field(discover.message?.result, 'capabilities'), 'extensions');
    const declaresExtension = modern && typeof extensions === 'object' && extensions !== null && X402_EXTENSION in extensions;
    evidence.push(
      evidenceOf(endpoint, `server/discover (${MODERN} envelope)`, discover, modern ? { supportedVersions: versions, extensions: extensions ?? null } : (discover.message?.error ?? undefined)),
    );

    if (!tools && modern) {
      const list = required(await rpc(ctx, endpoint, 'MCP tools/list (2026-07-28)', { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: envelope({}) } }, modernHeaders('tools/list')));
      const parsed = ListToolsResultSchema.safeParse(list.message?.result);
      tools = parsed.success ? (parsed.data.tools as Tool[]) : null;
      evidence.push(evidenceOf(endpoint, `tools/list (${MODERN})`, list, tools ? { tools: tools.map((t) => t.name) } : list.message?.error));
    }
    if (!initialized.success && !modern) {
      fault('mcp-handshake-failed', `${endpoint.href}: initialize ${init.message?.error ? `was answered error ${String(init.message.error.code)}` : `gave no InitializeResult (${init.unread ?? 'status ' + String(init.status)})`}, and server/discover named no ${MODERN}`);
      return outcome(`The MCP endpoint at ${endpoint.href} completes neither MCP generation's handshake.`);
    }
    if (!tools) {
      fault('mcp-handshake-failed', `${endpoint.href}: tools/list gave no list of tools`);
      return outcome(`The MCP endpoint at ${endpoint.href} does not list its tools.`);
    }

    // 4. Which tool, and whether it says it costs money.
    const picked = toolFor(tools, named?.tool, ctx.url.pathname);
    if ('missing' in picked) {
      if (named) {
        fault('mcp-tool-not-listed', picked.missing);
        return outcome(`The MCP endpoint at ${endpoint.href} does not list the tool "${named.tool}".`);
      }
      return { state: 'not-tested', why: `Which MCP tool sells ${ctx.url.pathname} is not clear: ${picked.missing}; name it in mcp.tool.`, evidence, faults };
    }
    const { tool } = picked;
    ctx.observed.mcpTool = { name: tool.name, title: tool.title ?? null, description: tool.description ?? '' };
    const words = [tool.title, tool.annotations?.title, tool.description].filter(Boolean).join('\n');
    evidence.push({ request: `tools/list: the tool ${tool.name}`, status: null, answer: { name: tool.name, title: tool.title ?? null, description: clip(tool.description ?? '') }, note: named ? 'the tool named in the request' : `the tool naming ${ctx.url.pathname}` });
    if (!COSTS_MONEY.test(words)) fault('mcp-tool-price-unstated', `${tool.name}: neither its title nor its description states a price or that it is paid`);

    // 5. Unpaid calls: one per generation, and on 2026-07-28 one more declaring x402's extension when the server declares it.
    const args = argumentsFor(ctx, tool);
    const seen: string[] = [];
    const unbound: string[] = [];
    const invalid: string[] = [];
    const judge = (generation: string, b: Binding, declared: boolean) => {
      seen.push(`${generation}${declared ? ` declaring ${X402_EXTENSION}` : ''}: ${bindingWords(b)}`);
      if (declared) {
        if (b.kind !== 'x402-extension') fault('mcp-x402-extension-ignored', `${generation} tools/call ${tool.name} declaring ${X402_EXTENSION}, unpaid: ${bindingWords(b)}`);
        return;
      }
      if (b.kind === 'x402-extension') fault('mcp-payment-required-unasked', `${generation} tools/call ${tool.name} not declaring ${X402_EXTENSION}: a payment_required result`);
      if (b.kind === 'none') unbound.push(`${generation}: ${b.observed}`);
      if (b.kind === 'invalid') invalid.push(`${generation}: ${b.observed}`);
    };
    if (initialized.success) {
      const r = required(await rpc(ctx, endpoint, 'MCP tools/call, unpaid', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: tool.name, arguments: args } }, legacyHeaders));
      const b = bindingOf(r);
      evidence.push(evidenceOf(endpoint, `tools/call ${tool.name} (${initialized.data.protocolVersion}, no payment)`, r, bindingEvidence(b)));
      judge(initialized.data.protocolVersion, b, false);
    }
    if (modern) {
      const calls = declaresExtension ? [false, true] : [false];
      for (const declared of calls) {
        const capabilities = declared ? { extensions: { [X402_EXTENSION]: {} } } : {};
        const r = required(
          await rpc(ctx, endpoint, `MCP tools/call, unpaid (2026-07-28${declared ? `, ${X402_EXTENSION}` : ''})`, { jsonrpc: '2.0', id: declared ? 7 : 6, method: 'tools/call', params: { name: tool.name, arguments: args, _meta: envelope(capabilities) } }, modernHeaders('tools/call', tool.name)),
        );
        const b = bindingOf(r);
        evidence.push(evidenceOf(endpoint, `tools/call ${tool.name} (${MODERN}${declared ? `, declaring ${X402_EXTENSION}` : ', no extension'}, no payment)`, r, bindingEvidence(b)));
        judge(MODERN, b, declared);
      }
    }
    if (unbound.length > 0) fault('mcp-no-payment-binding', `tools/call ${tool.name} unpaid: ${unbound.join('; ')}`);
    if (invalid.length > 0) fault('mcp-payment-binding-invalid', `tools/call ${tool.name} unpaid: ${invalid.join('; ')}`);

    const rest = [ctx.terms.mpp.challenges.length > 0 ? 'MPP' : null, ctx.terms.x402.decoded !== null ? 'x402' : null].filter(Boolean).join(' and ');
    const generations = [initialized.success ? initialized.data.protocolVersion : null, modern ? MODERN : null].filter(Boolean).join(' and ');
    return outcome(
      `${endpoint.href} serves MCP ${generations}${modern ? '' : ` (server/discover names no ${MODERN})`}; ${tool.name} was called unpaid: ${seen.join('; ')}. Over REST the endpoint offers ${rest || 'no terms'}.`,
    );
  } catch (error) {
    if (!(error instanceof NotSent)) throw error;
    return { state: 'not-tested', why: `An MCP request could not be sent: ${error.message}`, evidence, faults: [] };
  }
}

export const mcp: ProbeItem = { spec: mcpSpec, probe };
