// JSON text of answers whose large parts never change once made. A check that builds its answer from parts it
// keeps and reuses (the readiness findings for each capability and state, the parts of an assessment of a
// declaration's shape) marks those parts `immutable`: frozen to their leaves, so each part's text is made once and spliced into
// every text that holds it, at any depth, rather than serialised again on every paid call. Two texts are kept per
// part: `JSON.stringify`'s (the body) and the canonical one (the artifact hash, `lib/canonical-json.ts`).
//
// Why our own walker rather than JSON.stringify with a replacer: a replacer cannot hand back text, only values to
// serialise again, so nothing kept could be spliced in.

/** Values marked immutable; each one's texts once made, by mode. */
const kept = new WeakMap<object, { json?: string; canonical?: string }>();

/**
 * Freezes `value` to its leaves and marks it so its texts are made once: read it, never change it (a change throws
 * a TypeError in strict code). A part already marked is not walked again.
 * @example const assessment = immutable(assessReadiness(input)); Object.isFrozen(assessment.findings) // true
 */
export function immutable<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !kept.has(value)) {
    deepFreeze(value);
    kept.set(value, {});
  }
  return value;
}

// Only the parts marked keep texts: the objects inside one are frozen but not marked, so what is kept is one text per
// part, not one for every level of it. A part marked already is frozen to its leaves and not walked again. Plain
// data has no cycles (JSON.stringify would throw on one), so the walk ends.
function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const member of Object.values(value)) {
    if (member !== null && typeof member === 'object' && !kept.has(member)) deepFreeze(member);
  }
}

// A string holding none of these is written as itself between quotes. Anything else (quotes, backslashes, control
// characters, surrogates, paired or lone) goes through JSON.stringify, whose escaping is the definition. Why not
// JSON.stringify every string: the native call per key and value was most of the cost of serialising an answer.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(text: string): string {
  return NEEDS_ESCAPING.test(text) ? JSON.stringify(text) : `"${text}"`;
}

type Mode = 'json' | 'canonical';

/** A member JSON leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** The text of an object or array, made once for an immutable one. */
function compound(value: object, mode: Mode): string {
  const texts = kept.get(value);
  const known = texts?.[mode];
  if (known !== undefined) return known;
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (omitted(value[i]) ? 'null' : (serialise(value[i], mode) ?? 'null'));
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    const keys = mode === 'canonical' ? Object.keys(record).sort() : Object.keys(record);
    out = '{';
    for (const key of keys) {
      const member = record[key];
      if (omitted(member)) continue;
      const text = serialise(member, mode);
      if (text === undefined) continue;
      out += (out.length > 1 ? ',' : '') + quote(key) + ':' + text;
    }
    out += '}';
  }
  if (texts) texts[mode] = out;
  return out;
}

function serialise(value: unknown, mode: Mode): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (mode === 'canonical' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError(mode === 'canonical' ? 'canonicalJson: bigint has no JSON form' : 'Do not know how to serialize a BigInt');
    case 'object':
      if (value === null) return 'null';
      // A value with its own JSON form (a Date) is written as JSON.stringify writes it; canonical JSON is over plain
      // data only and has always written such an object by its members.
      if (mode === 'json' && typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
      return compound(value, mode);
    default:
      // undefined, functions and symbols: JSON has no such value.
      return mode === 'canonical' ? 'null' : undefined;
  }
}

/**
 * `JSON.stringify(body)`, byte for byte, with every part marked `immutable` (at any depth) serialised only the first
 * time any text holds it.
 * @example jsonText({ service: 'x', assessment: immutable({ score: 1 }) }) // '{"service":"x","assessment":{"score":1}}'
 */
export function jsonText(body: Record<string, unknown>): string {
  return compound(body, 'json');
}

/**
 * Canonical JSON (keys sorted by UTF-16 code units, no whitespace, numbers and strings as JSON.stringify writes them),
 * with every part marked `immutable` written once. Undefined, functions and symbols are left out of objects and
 * written as null elsewhere; a non-finite number or a bigint throws.
 * @example canonicalText({ b: 1, a: [true, 'x'] }) // '{"a":[true,"x"],"b":1}'
 */
export function canonicalText(value: unknown): string {
  return serialise(value, 'canonical')!;
}
