import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProblemError } from '@/lib/problems';
import { parseBody } from '@/lib/validation';

// A person reading a 400 sees "is required" and "must be one of …", never zod's "Invalid input: expected
// object, received undefined"; a message the schema sets itself still wins.

const Body = z.strictObject({
  url: z.url(),
  kind: z.enum(['site', 'page']),
  count: z.number().int().min(1).max(3),
  name: z.string().min(2),
  tags: z.array(z.string()).min(1),
  note: z.string().refine((v) => v !== 'x', 'must not be x').optional(),
});

function problemOf(value: unknown) {
  try {
    parseBody(Body, value);
  } catch (error) {
    if (error instanceof ProblemError) return error.problem as { detail: string; errors: Array<{ path: string; message: string }> };
    throw error;
  }
  throw new Error('parseBody accepted the value');
}

describe('validation messages in words', () => {
  it('a missing body is named as such', () => {
    expect(problemOf(undefined)).toMatchObject({ detail: 'The request body is required: send a JSON object.', errors: [{ path: '$', message: 'is required' }] });
    expect(problemOf([]).errors).toEqual([{ path: '$', message: 'must be a JSON object, not a list' }]);
  });

  it('missing fields are "required", whatever their type', () => {
    expect(problemOf({}).errors).toEqual(['url', 'kind', 'count', 'name', 'tags'].map((f) => ({ path: `$.${f}`, message: 'is required' })));
  });

  it('wrong values say what is allowed', () => {
    expect(problemOf({ url: 'nope', kind: 'all', count: '2', name: 'a', tags: [], note: 'x', extra: true }).errors).toEqual([
      { path: '$.url', message: 'must be a URL' },
      { path: '$.kind', message: 'must be one of "site", "page"' },
      { path: '$.count', message: 'must be a number, not text' },
      { path: '$.name', message: 'must be at least 2 characters long' },
      { path: '$.tags', message: 'must have at least 1 item' },
      { path: '$.note', message: 'must not be x' },
      { path: '$.extra', message: 'is not an allowed property' },
    ]);
    expect(problemOf({ url: 'https://a.example/', kind: 'page', count: 9, name: 'ab', tags: ['t'] })).toMatchObject({ detail: '$.count must be at most 3' });
  });
});
