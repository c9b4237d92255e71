// The MCP rendering of the paid-call pipeline's outcome (the MCP transport, server.ts, answers with it): renders an
// outcome as a tool result or a JSON-RPC error, as MPP defines payment for MCP (payment.ts has the field names and
// codes), or as x402 does for a call in x402's terms (x402.ts). Terms and receipts arrive as objects
// (lib/payments/wire.ts) and go into the result as they are:
//   fulfilled / replayed → result: structuredContent = the REST body, content = a Markdown summary
//                          (lib/reports/markdown.ts) ending with the report's address and the calls left in
//                          words, _meta: the MPP receipt, the x402 SettlementResponse, idempotentReplayed, and
//                          for a credits key creditsRemaining and reportUrl (the REST Credits-Remaining and Link)
//   payment-required     → MPP: JSON-RPC -32042 (or -32043 / -32602 for a refused credential) with
//                          data.challenges, and data.x402 the x402 terms; x402's tool-result binding: a tool
//                          result with isError, the PaymentRequired in content[0].text; x402's extension binding
//                          (2026-07-28): { resultType: "payment_required", paymentRequired }
// On MCP 2026-07-28 every result says `resultType: "complete"` but the extension binding's (the SDK would stamp
// it too; x402's MCP transport requires it of a tool-result binding answer, so it is said here, not left implied).
//   problem 400          → JSON-RPC -32602 with data.errors [{ path, message }] (paths within `arguments`)
//   any other problem    → tool result with isError: true, the problem's detail as text, the problem in _meta
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CheckEntry } from '@/lib/checks/entry';
import type { Problem } from '@/lib/problems';
import { INVALID_PARAMS_CODE, PAYMENT_REQUIRED_CODE, PAYMENT_VERIFICATION_FAILED_CODE, RECEIPT_META_KEY } from '@/lib/transports/mcp/payment';
import {
  X402_PAYMENT_RESPONSE_META_KEY,
  mcpPaymentRequired,
  x402ExtensionPaymentRequired,
  x402PaymentRequiredResult,
  type X402PaymentRequiredAnswer,
} from '@/lib/transports/mcp/x402';
import { reportMarkdown } from '@/lib/reports/markdown';
import { reportPagePath, reportPath } from '@/lib/reports/store';
import type { PaidCallOutcome } from '@/lib/paid-call/pipeline';

/**
 * A JSON-RPC error as sent: the SDK's McpError would prefix every message with "MCP error <code>:", which
 * the client's McpError then prefixes again.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A tool call's answer: a tool result, or (x402's extension binding only) a payment-required result. */
export type ToolAnswer = CallToolResult | X402PaymentRequiredAnswer;

/** How a tool call is answered: which payment binding the caller speaks, and what names its result. */
export interface ToolResultContext {
  /**
   * `mpp`: payment-required is JSON-RPC -32042; `x402`: an isError result carrying x402's PaymentRequired;
   * `x402-extension`: a `payment_required` result (MCP 2026-07-28 only).
   */
  binding: 'mpp' | 'x402' | 'x402-extension';
  /** The protocol generation the call came in: `modern` (2026-07-28) results say their `resultType`. */
  era?: 'legacy' | 'modern';
  /** The challenge the caller's MPP credential answered, named in the receipt. */
  challengeId?: string;
  /** The site's address, which makes `_meta.reportUrl` absolute. */
  appUrl?: string;
}

/**
 * A pipeline outcome as an MCP tool result; throws JsonRpcError for invalid params, and for payment-required
 * in MPP's binding.
 * @example return outcomeToolResult(check, await runPaidCall(runtime, call), { binding: 'mpp', appUrl })
 */
export function outcomeToolResult(check: CheckEntry, outcome: PaidCallOutcome, context: ToolResultContext): ToolAnswer {
  const answer = toolAnswer(check, outcome, context);
  return context.era === 'modern' && !('resultType' in answer) ? { resultType: 'complete', ...answer } : answer;
}

function toolAnswer(check: CheckEntry, outcome: PaidCallOutcome, context: ToolResultContext): ToolAnswer {
  switch (outcome.kind) {
    case 'fulfilled':
    case 'replayed': {
      const body = outcome.body as Record<string, unknown>;
      const resultMeta: Record<string, unknown> = {};
      const { mpp, x402 } = outcome.receipt;
      if (mpp) resultMeta[RECEIPT_META_KEY] = context.challengeId ? { ...mpp, challengeId: context.challengeId } : mpp;
      if (x402) resultMeta[X402_PAYMENT_RESPONSE_META_KEY] = x402;
      if (outcome.kind === 'replayed') resultMeta.idempotentReplayed = true;
      const creditsRemaining = outcome.prepaid?.creditsRemaining ?? null;
      if (creditsRemaining !== null) resultMeta.creditsRemaining = creditsRemaining;
      const links = reportLinks(context.appUrl, outcome.prepaid?.reportId ?? null, creditsRemaining !== null);
      if (links) Object.assign(resultMeta, links);
      return {
        content: [{ type: 'text', text: withTail(summaryOf(check, body), links, creditsRemaining) }],
        structuredContent: body,
        ...(Object.keys(resultMeta).length ? { _meta: resultMeta } : {}),
      };
    }
    case 'payment-required':
      return paymentRequiredResult(check, outcome, context.binding);
    case 'problem':
      return problemToolResult(outcome.problem, outcome.retryAfterSeconds);
  }
}

interface ReportLinks {
  reportUrl: string;
  reportApiUrl: string;
}

/**
 * Where the stored report can be read. A key's report has a page a person opens after signing in with the key
 * (`reportUrl`) beside the JSON an agent reads (`reportApiUrl`); a wallet's report is read only over the API,
 * where the wallet signs a nonce, so both name the JSON.
 */
function reportLinks(appUrl: string | undefined, reportId: string | null, paidWithKey: boolean): ReportLinks | null {
  if (!reportId) return null;
  const origin = (appUrl ?? '').replace(/\/$/, '');
  const reportApiUrl = `${origin}${reportPath(reportId)}`;
  return { reportUrl: paidWithKey ? `${origin}${reportPagePath(reportId)}` : reportApiUrl, reportApiUrl };
}

/**
 * The words a model reads after the summary: where the stored report is and what is left on the key, which
 * `_meta` says too (many clients show the model only the text).
 */
function withTail(summary: string, links: ReportLinks | null, creditsRemaining: number | null): string {
  const sentences: string[] = [];
  if (links) sentences.push(links.reportUrl === links.reportApiUrl ? `Report: ${links.reportUrl}.` : `Report: ${links.reportUrl} (JSON: ${links.reportApiUrl}).`);
  if (creditsRemaining !== null) sentences.push(creditsRemaining === 0 ? 'No calls left on this key.' : `${creditsRemaining} ${creditsRemaining === 1 ? 'call' : 'calls'} left on this key.`);
  return sentences.length ? `${summary.trimEnd()}\n\n${sentences.join(' ')}` : summary;
}

function paymentRequiredResult(check: CheckEntry, outcome: Extract<PaidCallOutcome, { kind: 'payment-required' }>, binding: ToolResultContext['binding']): ToolAnswer {
  const p = outcome.problem;
  const x402 = mcpPaymentRequired(check, outcome.challenge.x402, p.detail);
  // Without x402 terms on offer, an x402 caller is answered as any other: MPP's challenges are all there is.
  if (binding === 'x402-extension' && x402) return x402ExtensionPaymentRequired(x402, { problem: p });
  if (binding === 'x402' && x402) return x402PaymentRequiredResult(x402, { problem: p });
  // Same mapping as mppx's Mcp.errorCode(): an unreadable credential is invalid params, any other refused
  // credential a verification failure; both still carry a fresh challenge to pay.
  const code = outcome.refused === undefined ? PAYMENT_REQUIRED_CODE : outcome.refused === 'malformed-credential' ? INVALID_PARAMS_CODE : PAYMENT_VERIFICATION_FAILED_CODE;
  throw new JsonRpcError(code, p.detail, { httpStatus: 402, challenges: outcome.challenge.challenges, problem: p, ...(x402 ? { x402 } : {}) });
}

function problemToolResult(p: Problem, retryAfterSeconds: number | undefined): CallToolResult {
  if (p.status === 400) {
    throw new JsonRpcError(INVALID_PARAMS_CODE, p.detail, { httpStatus: 400, errors: p.errors ?? [], problem: { ...p, errors: p.errors ?? [] } });
  }
  // Everything else is an outcome of this call the model should read and act on (retry later, fix the
  // key, the site is down): a tool error. No structuredContent: it would be checked against the outputSchema.
  return {
    isError: true,
    content: [{ type: 'text', text: `${p.title}: ${p.detail}${retryAfterSeconds !== undefined ? ` Retry after ${retryAfterSeconds} s.` : ''}` }],
    _meta: { problem: p, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) },
  };
}

function summaryOf(check: CheckEntry, body: Record<string, unknown>): string {
  // The call is paid by now: a summary that cannot be written must not turn the result into an error.
  try {
    return reportMarkdown(check.id, body);
  } catch {
    // A body its Markdown cannot read still has its one line.
  }
  try {
    return check.summarize(body);
  } catch {
    return `${check.service}: done; the full result is in structuredContent.`;
  }
}
