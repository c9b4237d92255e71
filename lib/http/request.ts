import { ProblemError } from '@/lib/problems';

/** Reads a JSON body, refusing oversized bodies before parsing them. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  // Any declared type is read as JSON: agents and curl users often omit or mislabel it, and a
  // body that does not parse is answered with 400 either way.
  const text = await readTextCapped(request, maxBytes);
  if (text.trim() === '') throw new ProblemError('invalid-request', 'The request body is empty; send a JSON object.', { errors: [{ path: '$', message: 'is required' }] });
  return parseJsonText(text);
}

/**
 * Like readJsonBody, for a POST whose fields are all optional: an empty body reads as `{}`.
 * @example const body = parseBody(RotateBody, await readOptionalJsonBody(request, config.MAX_BODY_BYTES));
 */
export async function readOptionalJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readTextCapped(request, maxBytes);
  return text.trim() === '' ? {} : parseJsonText(text);
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError('invalid-request', 'The request body is not valid JSON.', { errors: [{ path: '$', message: 'is not valid JSON' }] });
  }
}

/** The body as text, refused with 413 past `maxBytes` (declared or actually sent) without reading further. */
export async function readTextCapped(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new ProblemError('payload-too-large', `The body may be at most ${maxBytes} bytes.`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ProblemError('payload-too-large', `The body may be at most ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  // Webhook signatures are checked over this text, so it must be the bytes exactly as sent (as UTF-8).
  return Buffer.concat(chunks).toString('utf8');
}

/** `Authorization: Bearer <token>` → token; anything else → null. */
export function bearerToken(headers: Headers): string | null {
  const auth = headers.get('authorization');
  const match = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}
