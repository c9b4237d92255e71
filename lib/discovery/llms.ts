import { OPERATIONS } from '@/lib/operations';
import { PLANS } from '@/lib/credits/plans';
import { PRICE_USD, formatUsd } from '@/lib/price';
import type { DiscoveryContext } from './openapi';

// /llms.txt (llmstxt.org): an H1, a one-line summary, then sections of links an agent can follow.
export function llmsTxt(ctx: DiscoveryContext): string {
  const rails = ctx.rails.length ? ctx.rails.join(', ') : 'none right now (use a prepaid credits key)';
  const lines = [
    '# Paid Agent Checks',
    '',
    `> Two paid checks for agents at ${PRICE_USD} USD per fulfilled request: an Agent Payment Readiness Assessment and an AI Visibility Check. Pay per request over HTTP 402 (MPP card, MPP evm, x402 v2 USDC on Base, chain 8453) or with a prepaid credits key (Authorization: Bearer). The same checks are MCP tools.`,
    '',
    `Live payment rails: ${rails}. Send the request without payment to receive the 402 challenge (WWW-Authenticate: Payment and PAYMENT-REQUIRED), then retry with Authorization: Payment, PAYMENT-SIGNATURE (or X-PAYMENT), or a Bearer credits key. Send an Idempotency-Key header to make retries safe: the same key and body replay the result without a second charge.`,
    '',
    '## Paid operations',
    '',
    ...OPERATIONS.map((op) => `- [POST ${op.path}](${ctx.appUrl}${op.path}): ${op.service}. ${op.description} MCP tool: \`${op.toolName}\`. A free GET on the same path describes it.`),
    '',
    '## Discovery and docs',
    '',
    `- [OpenAPI 3.1](${ctx.appUrl}/openapi.json): every endpoint, request schemas and x-payment-info offers`,
    `- [MCP endpoint](${ctx.appUrl}/api/mcp): Streamable HTTP; tools agent_payment_readiness_assessment, ai_visibility_check, list_paid_services`,
    `- [Docs](${ctx.appUrl}/docs): quick starts for each way to pay, API reference, rubrics, limits`,
    '',
    '## Prepaid credits',
    '',
    `- [Plans and calls left](${ctx.appUrl}/api/agent/credits): GET without a key lists the plans; with Authorization: Bearer <key>, the calls left`,
    ...PLANS.map((p) => `- [${p.name}](${ctx.appUrl}/pricing#${p.id}): ${p.calls} calls${p.billing === 'monthly' ? ' a month' : ''} for ${formatUsd(p.priceCents)} USD; ${p.description}`),
    '',
  ];
  return lines.join('\n');
}
