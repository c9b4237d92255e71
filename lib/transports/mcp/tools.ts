// The MCP tools, generated from the check registry: one paid tool per check (input schema = the
// REST body schema, output schema = the REST 200 body) and the free list_paid_services.
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CheckEntry } from '@/lib/checks/entry';
import { checks, checksInWords } from '@/lib/checks/registry';
import { PRICE_CENTS, PRICE_USD } from '@/lib/price';
import { IDEMPOTENCY_KEY_PATTERN } from '@/lib/paid-call/pipeline';
import { CREDENTIAL_META_KEY, IDEMPOTENCY_META_KEY, PAYMENT_REQUIRED_CODE, RECEIPT_META_KEY } from './payment';
import { jsonSchema } from './schema';
import { CLIENT_CAPABILITIES_META_KEY, X402_EXTENSION_ID, X402_PAYMENT_META_KEY, X402_PAYMENT_RESPONSE_META_KEY } from './x402';

export const LIST_PAID_SERVICES = 'list_paid_services';

/** The server's name and version, as both protocol generations report it. */
export const MCP_SERVER_INFO = { name: 'paid-agent-checks', version: '1.0.0' };

/**
 * What the server tells a client at `initialize` (2025-11-25) and in `server/discover` (2026-07-28).
 * @example new Server(MCP_SERVER_INFO, { instructions: serverInstructions() })
 */
export const serverInstructions = () =>
  `${checksInWords()} paid checks (${PRICE_USD} USD per fulfilled call) and a free catalogue. Call list_paid_services first. Paid tools answer an unpaid call ` +
  'with JSON-RPC error -32042 whose data.challenges are MPP challenges (card, USDC on Base); pay one and retry with the credential in ' +
  'params._meta["org.paymentauth/credential"] (mppx McpClient does this), or send "Authorization: Bearer <credits key>" on the HTTP request. ' +
  'x402 clients pay with the PaymentPayload in params._meta["x402/payment"] and get the settlement in the result\'s _meta["x402/payment-response"]; ' +
  'a call declaring "org.x402/payment" in its client capabilities\' extensions gets the x402 terms instead: on MCP 2026-07-28 as a ' +
  '"payment_required" result, on 2025-11-25 (declared in params._meta["io.modelcontextprotocol/clientCapabilities"]) as an isError result.';

const PaidServiceEntry = z.object({
  name: z.string(),
  toolName: z.string(),
  operationId: z.string(),
  description: z.string(),
  price: z.object({ amount: z.string(), currency: z.literal('USD'), cents: z.number().int() }),
  rails: z.array(z.string()),
  rest: z.object({ method: z.literal('POST'), path: z.string(), url: z.string() }),
  inputSchema: z.record(z.string(), z.unknown()),
});

export const PaidServicesList = z.object({
  services: z.array(PaidServiceEntry),
  prepaid: z.object({ how: z.string(), plans: z.string() }),
  mcpPayment: z.object({
    /** MPP methods offered in-band over MCP (answered -32042); x402 has its own binding, below. */
    methods: z.array(z.string()),
    paymentRequiredCode: z.number().int(),
    credentialMetaKey: z.string(),
    receiptMetaKey: z.string(),
    idempotencyMetaKey: z.string(),
    /** x402's MCP binding (null when the x402 rail is not live): where its payment and settlement ride, how to ask for its terms. */
    x402: z
      .object({
        paymentMetaKey: z.string(),
        paymentResponseMetaKey: z.string(),
        clientCapabilitiesMetaKey: z.string(),
        extension: z.string(),
      })
      .nullable(),
  }),
});
export type PaidServicesList = z.infer<typeof PaidServicesList>;

function paidTool(op: CheckEntry): Tool {
  return {
    name: op.toolName,
    title: `${op.service} (${PRICE_USD} USD)`,
    description:
      `${op.description}\n\nPrice: ${PRICE_USD} USD per fulfilled call. An unpaid call is answered with JSON-RPC error ${PAYMENT_REQUIRED_CODE} ` +
      `carrying MPP challenges (card and USDC on Base); retry with the credential in params._meta["${CREDENTIAL_META_KEY}"], or send a prepaid ` +
      `credits key as "Authorization: Bearer" on the HTTP request. Optional params._meta.${IDEMPOTENCY_META_KEY} ` +
      `(${IDEMPOTENCY_KEY_PATTERN.source}) replays a result without a second charge. x402 clients: pay with the PaymentPayload in ` +
      `params._meta["${X402_PAYMENT_META_KEY}"]; declare "${X402_EXTENSION_ID}" in your client capabilities' extensions (MCP 2026-07-28: a ` +
      `"payment_required" result; 2025-11-25: in params._meta["${CLIENT_CAPABILITIES_META_KEY}"], an isError result) to get the x402 terms. ` +
      `Same call over REST: POST ${op.path}.`,
    inputSchema: jsonSchema(op.input, 'input'),
    outputSchema: jsonSchema(op.output, 'output') as Tool['outputSchema'],
    annotations: {
      title: op.service,
      readOnlyHint: true,
      destructiveHint: false,
      // A check whose work can fail for reasons outside its arguments reaches beyond them (a third-party site).
      openWorldHint: op.workBeforeCharge,
    },
  };
}

const listTool: Tool = {
  name: LIST_PAID_SERVICES,
  title: 'List paid services (free)',
  description:
    'Free. Lists every paid check this server sells: name, description, price, payment rails, REST path, MCP tool name and input schema, ' +
    'and how to pay over MCP.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: jsonSchema(PaidServicesList, 'output') as Tool['outputSchema'],
  annotations: { title: 'List paid services', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** Built once per list of checks (the list changes only when a test registers a check of its own). */
const cachedTools = new WeakMap<readonly CheckEntry[], Tool[]>();

/** Every tool, paid ones in registry order, then list_paid_services. */
export function toolList(): Tool[] {
  const list = checks();
  let tools = cachedTools.get(list);
  if (!tools) cachedTools.set(list, (tools = [...list.map(paidTool), listTool]));
  return tools;
}

/**
 * The check a paid tool runs, by the tool's name.
 * @example checkByTool(check.toolName) === check // true for every registered check
 */
export function checkByTool(name: string): CheckEntry | undefined {
  return checks().find((c) => c.toolName === name);
}

export function listPaidServices(appUrl: string, liveRails: readonly string[]): PaidServicesList {
  return {
    services: checks().map((op) => ({
      name: op.service,
      toolName: op.toolName,
      operationId: op.operationId,
      description: op.description,
      price: { amount: PRICE_USD, currency: 'USD' as const, cents: PRICE_CENTS },
      rails: [...liveRails],
      rest: { method: 'POST' as const, path: op.path, url: new URL(op.path, appUrl).href },
      inputSchema: jsonSchema(op.input, 'input') as Record<string, unknown>,
    })),
    prepaid: {
      how: 'Send "Authorization: Bearer <credits key>" on the MCP HTTP request; each fulfilled paid call spends one call.',
      plans: `${appUrl}/api/agent/credits`,
    },
    mcpPayment: {
      methods: liveRails.filter((r) => r !== 'x402'),
      paymentRequiredCode: PAYMENT_REQUIRED_CODE,
      credentialMetaKey: CREDENTIAL_META_KEY,
      receiptMetaKey: RECEIPT_META_KEY,
      idempotencyMetaKey: IDEMPOTENCY_META_KEY,
      x402: liveRails.includes('x402')
        ? {
            paymentMetaKey: X402_PAYMENT_META_KEY,
            paymentResponseMetaKey: X402_PAYMENT_RESPONSE_META_KEY,
            clientCapabilitiesMetaKey: CLIENT_CAPABILITIES_META_KEY,
            extension: X402_EXTENSION_ID,
          }
        : null,
    },
  };
}
