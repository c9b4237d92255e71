// How much of the page a visibility score rests on. The check reads at most PAGE_READ_MAX_BYTES of a page and
// parses its markup only up to the parser's limits; a score of a page cut short is a score of its first part,
// and the report says so beside the number (`scoreBasis`, and a sentence in the summary).

import { PAGE_READ_MAX_BYTES } from './published';

/** `report.scoreBasis`: the bytes read, the page's size when the server stated it, and whether reading stopped short. */
export interface ScoreBasis {
  /** Bytes of the page read (after content coding was undone). */
  bytesRead: number;
  /** The page's whole size in bytes: bytesRead when it was read to its end, else its Content-Length when that counts the page itself (no content coding), else null. */
  pageBytes: number | null;
  /** Whether the facts rest on part of the page: cut at the byte limit, or markup past the parser's limits. */
  truncated: boolean;
}

/**
 * The score basis of a page fetch.
 * @example scoreBasisOf({ bytesRead: 2097152, truncated: true, headerAll: () => [] }, true) // { bytesRead: 2097152, pageBytes: null, truncated: true }
 */
export function scoreBasisOf(page: { bytesRead: number; truncated: boolean; headerAll(name: string): string[] }, factsTruncated: boolean): ScoreBasis {
  if (!page.truncated) return { bytesRead: page.bytesRead, pageBytes: page.bytesRead, truncated: factsTruncated };
  // A compressed response's Content-Length counts the compressed bytes, not the page's.
  const coded = page.headerAll('content-encoding').some((v) => v.split(',').some((c) => c.trim() !== '' && c.trim().toLowerCase() !== 'identity'));
  const lengths = page.headerAll('content-length');
  const declared = lengths.length === 1 && /^\d{1,15}$/.test(lengths[0].trim()) ? Number(lengths[0].trim()) : null;
  return { bytesRead: page.bytesRead, pageBytes: !coded && declared !== null && declared > page.bytesRead ? declared : null, truncated: true };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} MiB`;

/**
 * The score basis in words, for the report's summary; null when the score rests on the whole page.
 * @example scoreBasisWords({ bytesRead: 2097152, pageBytes: 3145728, truncated: true }) // 'The score rests on the first 2 MiB of the page, which is 3 MiB; the rest was not read.'
 */
export function scoreBasisWords(basis: Readonly<Record<string, unknown>>): string | null {
  if (basis.truncated !== true) return null;
  const read = typeof basis.bytesRead === 'number' ? basis.bytesRead : 0;
  const whole = typeof basis.pageBytes === 'number' ? basis.pageBytes : null;
  if (whole !== null && read >= whole) return 'The score rests on the part of the page read before its markup reached the parser\'s limits; the rest was not read.';
  return `The score rests on the first ${mb(Math.min(read, PAGE_READ_MAX_BYTES))} of the page${whole !== null ? `, which is ${mb(whole)}` : ', whose full size the server did not state'}; the rest was not read.`;
}
