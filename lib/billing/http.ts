import { z } from 'zod';
import { getRuntime } from '@/lib/runtime';
import { ProblemError, answerWithProblems, problem } from '@/lib/problems';
import { parseBody } from '@/lib/validation';
import { readTextCapped } from '@/lib/http/request';
import { PURCHASABLE_PLAN_IDS } from '@/lib/price';

// Plumbing shared by the /api/billing routes: bodies arrive as JSON (fetch) or as an HTML form post
// (pages that work without JavaScript); either way a key travels in the body, never in the URL.

export interface ParsedBody {
  fields: Record<string, unknown>;
  /** A browser form post expects a redirect; a JSON client expects JSON. */
  form: boolean;
}

export async function readBillingBody(request: Request, maxBytes: number): Promise<ParsedBody> {
  const type = request.headers.get('content-type') ?? '';
  const text = await readTextCapped(request, maxBytes);
  if (/application\/x-www-form-urlencoded/i.test(type)) {
    return { fields: Object.fromEntries(new URLSearchParams(text)), form: true };
  }
  if (/multipart\/form-data/i.test(type)) {
    throw new ProblemError('invalid-request', 'Send the form as application/x-www-form-urlencoded or the body as JSON.');
  }
  if (text.trim() === '') throw new ProblemError('invalid-request', 'The request body is empty; send a JSON object.', { errors: [{ path: '$', message: 'is required' }] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProblemError('invalid-request', 'The request body is not valid JSON.', { errors: [{ path: '$', message: 'is not valid JSON' }] });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProblemError('invalid-request', 'The request body must be a JSON object.', { errors: [{ path: '$', message: 'must be an object' }] });
  }
  return { fields: parsed as Record<string, unknown>, form: false };
}

const formBoolean = z.union([z.boolean(), z.enum(['true', 'on', '1']).transform(() => true), z.enum(['false', 'off', '0', '']).transform(() => false)]);
const keyField = z.string().trim().min(1, 'is required').max(200, 'is too long');

export const CheckoutBody = z.strictObject({
  plan: z.enum(PURCHASABLE_PLAN_IDS, `must be one of ${PURCHASABLE_PLAN_IDS.join(', ')}`),
  topUp: formBoolean.optional(),
  key: keyField.optional(),
}).refine((b) => !b.topUp || b.key !== undefined, { path: ['key'], message: 'is required for a top-up' });

export const KeyBody = z.strictObject({ key: keyField });

export function parseFields<S extends z.ZodType>(schema: S, fields: Record<string, unknown>): z.infer<S> {
  return parseBody(schema, fields);
}

/** Unexpected failures of a billing route: a card purchase is involved, so say nothing was charged. */
const BILLING_FAILED = { problem: problem('billing-unavailable', 'Something went wrong on our side; nothing was charged. Retry shortly.'), retryAfterSeconds: 5 };

/** Runs a billing handler: problem+json for every failure (lib/problems.ts's one exit), never a stack trace. */
export function billingRoute(name: string, fn: () => Promise<Response>): Promise<Response> {
  return answerWithProblems({ route: name, log: (event) => getRuntime().log(event), unexpected: BILLING_FAILED }, fn);
}

export function noStoreJson(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return Response.json(body, { status: init.status ?? 200, headers: { 'Cache-Control': 'no-store', ...init.headers } });
}
