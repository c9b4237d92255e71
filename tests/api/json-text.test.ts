import { describe, expect, it } from 'vitest';
import { immutable, jsonText } from '@/lib/json-text';

// A paid call's body is serialised by jsonText: it must be JSON.stringify's text, byte for byte, whether or not a
// member was marked immutable (its text then made once and reused).

describe('jsonText', () => {
  it('is JSON.stringify of the body, with members immutable or not, and leaves out what JSON.stringify leaves out', () => {
    const part = immutable({ b: [1, 'two', { c: null, d: 'é "q" \u2028' }], a: true, n: 1.5e-7 });
    const body = { service: 'S', first: part, skipped: undefined, fn: () => 1, list: ['x'], again: part, n: 2, s: null };
    const expected = JSON.stringify(body);
    expect(jsonText(body)).toBe(expected);
    // The second time the immutable part's text is the one kept; the body around it is made anew.
    expect(jsonText({ ...body, service: 'T' })).toBe(JSON.stringify({ ...body, service: 'T' }));
    expect(jsonText({})).toBe('{}');
  });

  it('freezes an immutable value to its leaves: its kept text can never go stale', () => {
    const part = immutable({ list: [{ score: 1 }] });
    jsonText({ part });
    expect(() => {
      (part.list[0] as { score: number }).score = 2;
    }).toThrow(TypeError);
    expect(() => {
      (part.list as unknown[]).push(3);
    }).toThrow(TypeError);
    expect(jsonText({ part })).toBe('{"part":{"list":[{"score":1}]}}');
  });

  it('serialises a member not marked immutable afresh every time', () => {
    const part = { score: 1 };
    expect(jsonText({ part })).toBe('{"part":{"score":1}}');
    part.score = 2;
    expect(jsonText({ part })).toBe('{"part":{"score":2}}');
  });
});
