// One JSON line per event on stdout. Callers pass masked identifiers only; as a second guard,
// anything shaped like a credits key or a payment credential is masked here before it is written.
const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/pac_live_[0-9A-Za-z]{4,}/g, 'pac_live_…'],
  [/(Payment|Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 …'],
];

export function scrubSecrets(text: string): string {
  return SECRET_SHAPES.reduce((t, [re, mask]) => t.replace(re, mask), text);
}

export function logEvent(event: Record<string, unknown>): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  process.stdout.write(scrubSecrets(JSON.stringify({ t: new Date().toISOString(), ...event })) + '\n');
}
