import { endpoints, type LlmsSection } from '@/lib/endpoints';
import { PLANS } from '@/lib/credits/plans';
import { PRICE_USD, formatUsd } from '@/lib/price';
import { checkServicesInWords, checksInWords } from '@/lib/checks/registry';
import { DOCS_PAGES } from '@/lib/docs/pages';
import type { DiscoveryContext } from './openapi';

// /llms.txt (llmstxt.org): an H1, a one-line summary, then sections of links an agent can follow,
// all taken from the endpoint registry (lib/endpoints.ts).

/** A section of links: the registry entries that carry an llms.txt line for it, then `more`. */
function section(ctx: DiscoveryContext, name: LlmsSection, more: string[] = []): string[] {
  const links = endpoints().flatMap((e) => (e.kind === 'free' && e.llms?.section === name ? [`- [${e.llms.label}](${ctx.appUrl}${e.path}): ${e.llms.text}`] : []));
  return [`## ${name}`, '', ...links, ...more, ''];
}

/**
 * The /llms.txt body for this deployment.
 * @example llmsTxt({ appUrl: 'https://checks.example', rails: ['evm'], usdcAddress: BASE_USDC_ADDRESS }).split('\n')[0] // '# Paid Agent Checks'
 */
export function llmsTxt(ctx: DiscoveryContext): string {
  const rails = ctx.rails.length ? ctx.rails.join(', ') : 'none right now (use a prepaid credits key)';
  const lines = [
    '# Paid Agent Checks',
    '',
    `> ${checksInWords()} paid checks for agents at ${PRICE_USD} USD per fulfilled request: ${checkServicesInWords()}. Pay per request over HTTP 402 (MPP card, MPP evm, x402 v2 USDC on Base, chain 8453) or with a prepaid credits key (Authorization: Bearer). The same checks are MCP tools.`,
    '',
    `Live payment rails: ${rails}. Send the request without payment to receive the 402 challenge (WWW-Authenticate: Payment and PAYMENT-REQUIRED), then retry with Authorization: Payment, PAYMENT-SIGNATURE (or X-PAYMENT), or a Bearer credits key. Send an Idempotency-Key header to make retries safe: the same key and body replay the result without a second charge.`,
    '',
    '## Paid operations',
    '',
    ...endpoints().flatMap((e) => (e.kind === 'paid' ? [`- [POST ${e.path}](${ctx.appUrl}${e.path}): ${e.operation.service}. ${e.operation.description} MCP tool: \`${e.operation.toolName}\`. A free GET on the same path describes it.`] : [])),
    '',
    ...section(ctx, 'Discovery and docs', DOCS_PAGES.map((p) => `- [Docs: ${p.label}](${ctx.appUrl}${p.path}): ${p.description}`)),
    ...section(ctx, 'Prepaid credits', PLANS.map((p) => `- [${p.name}](${ctx.appUrl}/pricing#${p.id}): ${p.calls} calls${p.billing === 'monthly' ? ' a month' : ''} for ${formatUsd(p.priceCents)} USD; ${p.description}`)),
  ];
  return lines.join('\n');
}
