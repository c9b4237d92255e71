// Reads the Prometheus text format back into numbers, for tests that scrape GET /api/metrics.

export type Samples = Map<string, number>;

/** Every sample line as `name{label="v",…}` (labels sorted) → value. */
export function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels = m[2] ? [...m[2].matchAll(/(?<!\w)(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort() : [];
    samples.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  return samples;
}

/** The value of `name` with exactly `labels` (0 when the series does not exist yet). */
export function sample(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  const key = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',')}}`;
  return samples.get(key) ?? 0;
}

/** The sum of every series of `name` whose labels include `labels`. */
export function sumOf(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const [key, value] of samples) {
    const open = key.indexOf('{');
    if (key.slice(0, open) !== name) continue;
    const have = key.slice(open + 1, -1).split(',');
    if (wanted.every((w) => have.includes(w))) total += value;
  }
  return total;
}
