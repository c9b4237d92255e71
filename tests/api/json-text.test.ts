import { describe, expect, it } from 'vitest';
import { canonicalText, immutable, jsonText } from '@/lib/json-text';

// A paid call's body is serialised by jsonText: it must be JSON.stringify's text, byte for byte, whether or not a
// part was marked immutable (its text then made once and reused), at any depth. Its canonical text (the artifact
// hash) must be what sorting every object's keys and then JSON.stringify give.

/** Canonical JSON by its definition, independently of our walker: sort every object's keys, then JSON.stringify. */
const sortedStringify = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
  );

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

  it('splices an immutable part kept deep inside a body that is not, in both texts, the same part held twice', () => {
    const finding = immutable({ id: 'x.missing', steps: ['Do "this"', 'then \\ that'], effort: 'small', n: -0, e: 1e21 });
    const other = immutable({ z: 1, a: [finding] });
    const made = () => ({ score: 3, list: [finding, undefined, () => 1, { finding, when: new Date(0) }], nested: { deeper: [other] }, skip: undefined });
    for (let i = 0; i < 2; i++) {
      const body = made();
      expect(jsonText(body)).toBe(JSON.stringify(body));
      expect(canonicalText({ ...body, list: body.list.slice(0, 2), when: undefined })).toBe(sortedStringify({ ...body, list: body.list.slice(0, 2) }));
    }
    expect(canonicalText({ b: 1, a: { d: [true, null], c: 'é' } })).toBe('{"a":{"c":"é","d":[true,null]},"b":1}');
  });

  it('canonical text refuses what has no JSON form; jsonText refuses a bigint as JSON.stringify does', () => {
    expect(() => canonicalText({ n: Number.NaN })).toThrow('non-finite');
    expect(() => canonicalText({ n: 1n })).toThrow('bigint');
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
    expect(jsonText({ n: Number.POSITIVE_INFINITY })).toBe('{"n":null}');
  });

  it('a part marked inside another marked part keeps its own text: changing nothing, both read the same afterwards', () => {
    const inner = immutable({ text: 'kept' });
    const outer = immutable({ inner, more: [inner] });
    expect(Object.isFrozen(outer.more)).toBe(true);
    expect(jsonText({ outer })).toBe('{"outer":{"inner":{"text":"kept"},"more":[{"text":"kept"}]}}');
    expect(jsonText({ inner })).toBe('{"inner":{"text":"kept"}}');
  });
});
