import type { z } from 'zod';
import { ProblemError, type FieldError } from '@/lib/problems';

/** `$.a.b[0]` from a zod issue path. */
function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, seg) => {
    if (typeof seg === 'number') return `${out}[${seg}]`;
    const name = String(seg);
    return /^[A-Za-z_$][\w$]*$/.test(name) ? `${out}.${name}` : `${out}[${JSON.stringify(name)}]`;
  }, '$');
}

function fieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // One entry per unknown property, each with its own path, so a client can fix them all at once.
      for (const key of issue.keys) out.push({ path: jsonPath([...issue.path, key]), message: 'is not an allowed property' });
    } else {
      out.push({ path: jsonPath(issue.path), message: issue.message });
    }
  }
  return out;
}

/** Validates a parsed JSON body; throws 400 problem+json listing every bad field. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error);
  const detail = errors.length === 1 ? `${errors[0].path} ${errors[0].message}` : `${errors.length} fields are not valid; see errors.`;
  throw new ProblemError('invalid-request', detail, { errors });
}
