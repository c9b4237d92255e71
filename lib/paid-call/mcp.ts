// The MCP rendering of the paid-call pipeline's outcome (the MCP transport, lib/mcp/server.ts, answers with it): renders an outcome as a tool result or a JSON-RPC error, as
// MPP defines payment for MCP (lib/mcp/payment.ts has the field names and codes):
//   fulfilled / replayed → result: structuredContent = the REST body, content = a Markdown summary
//                          (lib/reports/markdown.ts), _meta: the MPP receipt, idempotentReplayed, and for a
//                          credits key creditsRemaining and reportUrl (the REST Credits-Remaining and Link)
//   payment-required     → JSON-RPC -32042 (or -32043 / -32602 for a refused credential) with data.challenges
//   problem 400          → JSON-RPC -32602 with data.errors [{ path, message }] (paths within `arguments`)
//   any other problem    → tool result with isError: true, the problem's detail as text, the problem in _meta
import { Receipt } from 'mppx';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CheckEntry } from '@/lib/checks/entry';
import type { Problem } from '@/lib/problems';
import { INVALID_PARAMS_CODE, PAYMENT_REQUIRED_CODE, PAYMENT_VERIFICATION_FAILED_CODE, RECEIPT_META_KEY } from '@/lib/mcp/payment';
import { reportMarkdown } from '@/lib/reports/markdown';
import { reportPath } from '@/lib/reports/store';
import type { PaidCallOutcome } from './pipeline';

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

/**
 * A pipeline outcome as an MCP tool result; throws JsonRpcError for payment-required and invalid params.
 * `challengeId`: the challenge the caller's credential answered, named in the receipt. `appUrl`: the site's
 * address, which makes `_meta.reportUrl` absolute.
 * @example return outcomeToolResult(check, await runPaidCall(runtime, call), undefined)
 */
export function outcomeToolResult(check: CheckEntry, outcome: PaidCallOutcome, challengeId: string | undefined, appUrl = ''): CallToolResult {
  switch (outcome.kind) {
    case 'fulfilled':
    case 'replayed': {
      const body = outcome.body as Record<string, unknown>;
      const resultMeta: Record<string, unknown> = {};
      const receipt = decodeReceipt(outcome.receipt, challengeId);
      if (receipt) resultMeta[RECEIPT_META_KEY] = receipt;
      if (outcome.kind === 'replayed') resultMeta.idempotentReplayed = true;
      if (outcome.prepaid?.creditsRemaining !== null && outcome.prepaid?.creditsRemaining !== undefined) resultMeta.creditsRemaining = outcome.prepaid.creditsRemaining;
      if (outcome.prepaid?.reportId) resultMeta.reportUrl = `${appUrl.replace(/\/$/, '')}${reportPath(outcome.prepaid.reportId)}`;
      return {
        content: [{ type: 'text', text: summaryOf(check, body) }],
        structuredContent: body,
        ...(Object.keys(resultMeta).length ? { _meta: resultMeta } : {}),
      };
    }
    case 'payment-required': {
      const p = outcome.problem;
      // Same mapping as mppx's Mcp.errorCode(): an unreadable credential is invalid params, any other refused
      // credential a verification failure; both still carry a fresh challenge to pay.
      const code = outcome.refused === undefined ? PAYMENT_REQUIRED_CODE : outcome.refused === 'malformed-credential' ? INVALID_PARAMS_CODE : PAYMENT_VERIFICATION_FAILED_CODE;
      throw new JsonRpcError(code, p.detail, { httpStatus: 402, challenges: outcome.challenge.challenges, problem: p });
    }
    case 'problem':
      return problemToolResult(outcome.problem, outcome.retryAfterSeconds);
  }
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

/** The MPP receipt for the result's `_meta`, from the receipt mppx wrote (null when paid otherwise). */
function decodeReceipt(receipt: Record<string, string>, challengeId: string | undefined): Record<string, unknown> | null {
  const serialized = Object.entries(receipt).find(([name]) => name.toLowerCase() === 'payment-receipt')?.[1];
  if (!serialized) return null;
  try {
    const decoded = Receipt.deserialize(serialized) as Record<string, unknown>;
    return challengeId ? { ...decoded, challengeId } : decoded;
  } catch {
    return null;
  }
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
