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

const TYPE_WORDS: Record<string, string> = { object: 'a JSON object', array: 'a list', string: 'text', number: 'a number', int: 'a whole number', boolean: 'true or false' };

/** The JSON type of a value as a person names it. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return TYPE_WORDS[typeof value] ?? typeof value;
}

/**
 * Zod's default messages ("Invalid input: expected object, received undefined") in the words a person reading
 * an API error expects. Messages a schema sets itself take precedence over these (zod's error precedence).
 */
function inWords(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}, not ${typeOf(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
    case 'too_big': {
      const bound = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      const side = issue.code === 'too_small' ? 'at least' : 'at most';
      if (issue.origin === 'string') return `must be ${side} ${bound} character${bound === 1 ? '' : 's'} long`;
      if (issue.origin === 'array') return `must have ${side} ${bound} item${bound === 1 ? '' : 's'}`;
      if (issue.origin === 'number' || issue.origin === 'int') return `must be ${side} ${bound}`;
      return undefined;
    }
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL' : `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'is not any of the accepted forms';
    default:
      return undefined;
  }
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
  const result = schema.safeParse(value, { error: inWords });
  if (result.success) return result.data;
  const errors = fieldErrors(result.error);
  const detail =
    errors.length !== 1 ? `${errors.length} fields are not valid; see errors.`
    : errors[0].path === '$' ? `The request body ${errors[0].message}${value === undefined ? ': send a JSON object' : ''}.`
    : `${errors[0].path} ${errors[0].message}`;
  throw new ProblemError('invalid-request', detail, { errors });
}
