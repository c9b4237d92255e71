import { z } from 'zod';
import { getRuntime } from '@/lib/runtime';
import { ProblemError, answerWithProblems, problem } from '@/lib/problems';
import { parseBody } from '@/lib/validation';
import { readTextCapped } from '@/lib/http/request';
import { PURCHASABLE_PLAN_IDS } from '@/lib/price';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import { authenticateKey } from '@/lib/credits/ledger';
import { maskKey } from '@/lib/credits/keys';
import { readSession, refuseForeignForm, refuseForeignOrigin, sessionIdOf } from '@/lib/session';

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

/** A top-up names its key in the body, or is sent from a page signed in with it (billingKeyOf). */
export const CheckoutBody = z.strictObject({
  plan: z.enum(PURCHASABLE_PLAN_IDS, `must be one of ${PURCHASABLE_PLAN_IDS.join(', ')}`),
  topUp: formBoolean.optional(),
  key: keyField.optional(),
});

/** The key in the body; a page signed in with the key sends none. */
export const KeyBody = z.strictObject({ key: keyField.optional() });

/** The key a billing request is about: its hash, and how it may be shown. */
export interface BillingKey {
  keyHash: string;
  mask: string;
}

/**
 * The key a billing request names in its body or, without one, the key the browser is signed in with. A signed-in
 * request is held to the same origin rule as every other session change (refuseForeignOrigin); with neither, the
 * answer says both ways to name a key.
 * @example const who = await billingKeyOf(request, body.key, runtime, form); // { keyHash, mask: 'pac_live_…Ab3d' }
 */
export async function billingKeyOf(request: Request, key: string | undefined, deps: { store: Store; config: Config }, form = false): Promise<BillingKey> {
  if (key !== undefined) return { keyHash: await authenticateKey(deps.store, deps.config.CREDITS_KEY_SECRET, key), mask: maskKey(key) };
  // A form posted by our own page without JavaScript carries Origin: null (refuseForeignForm says why).
  if (form) refuseForeignForm(request, deps.config.APP_URL);
  else refuseForeignOrigin(request, deps.config.APP_URL);
  const session = await readSession(deps.store, sessionIdOf(request, deps.config), Date.now());
  if (session) return { keyHash: session.keyHash, mask: session.keyPrefix };
  throw new ProblemError('invalid-request', '$.key is required: send the credits key, or sign in with it on this site first.', { errors: [{ path: '$.key', message: 'is required (or sign in)' }] });
}

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
