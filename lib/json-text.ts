// JSON text of answers whose large parts never change once made. A check that keeps and reuses a part of its answer
// (the readiness assessment of a request seen before) marks it `immutable`: frozen to its leaves, so its text can
// be made once and spliced into every body that holds it, rather than serialised again on every paid call.

/** Text of the values marked immutable, made the first time one is serialised. */
const texts = new WeakMap<object, string | null>();

/**
 * Freezes `value` to its leaves and marks it as serialised once by `jsonText`: read it, never change it (a change
 * throws a TypeError in strict code).
 * @example const assessment = immutable(assessReadiness(input)); Object.isFrozen(assessment.findings) // true
 */
export function immutable<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    if (!texts.has(value)) texts.set(value, null);
    deepFreeze(value);
  }
  return value;
}

// Plain data has no cycles (JSON.stringify would throw on one), so the walk ends.
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}

function memberText(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || !texts.has(value)) return JSON.stringify(value);
  let text = texts.get(value);
  if (text == null) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * `JSON.stringify(body)` for a body of plain data, byte for byte, with each top-level member marked `immutable`
 * serialised only the first time any body holds it.
 * @example jsonText({ service: 'x', assessment: immutable({ score: 1 }) }) // '{"service":"x","assessment":{"score":1}}'
 */
export function jsonText(body: Record<string, unknown>): string {
  let out = '';
  for (const key of Object.keys(body)) {
    const text = memberText(body[key]);
    // JSON.stringify leaves out a member it has no text for (undefined, a function, a symbol).
    if (text === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(key)}:${text}`;
  }
  return `{${out}}`;
}
