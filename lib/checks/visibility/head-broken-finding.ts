// The `head-broken` finding, graded by what the early end of the <head> costs: the head elements written after
// the break (head-break.ts `displaced`) are read as body, where a canonical, a robots tag or a description no
// longer counts. A break with nothing of the head after it (a tag manager's <iframe> just before </head>) costs
// nothing and is reported as context only.

import type { Severity } from '@/lib/checks/severity';
import type { Finding } from './finding';
import type { HeadBreak } from './head-break';

/** Displaced elements that decide indexing or how the page is shown: their loss is a medium fault. */
const KEY_ELEMENT = /^<(?:title>|base>|link rel="[^"]*\bcanonical\b|meta name="(?:robots|googlebot|bingbot|description)")/;

/**
 * The head-broken finding for a break, and its severity: medium when a key element (canonical, robots, description,
 * title, base) follows the break, low when only other head elements do, info when none does.
 * @example headBrokenFinding({ element: 'iframe', line: 9, displaced: [] }).severity // 'info'
 */
export function headBrokenFinding(broken: HeadBreak): { finding: Omit<Finding, 'rubric' | 'pointsLost' | 'severity'>; severity: Severity } {
  const what = broken.element === '#text' ? 'text' : `an <${broken.element}>`;
  const moved = broken.element === '#text' ? 'text' : `<${broken.element}>`;
  const displaced = broken.displaced ?? [];
  const key = displaced.filter((d) => KEY_ELEMENT.test(d));
  const why = 'An element that cannot be in the <head> (an <iframe>, an <img>, a <div>, or stray text) closes it for browsers, HTML parsers and Google, which reads page metadata only in the head.';
  if (displaced.length === 0) {
    return {
      severity: 'info',
      finding: {
        id: 'head-broken',
        observed: `${what} on line ${broken.line} ends the <head> before the page's own </head>; nothing after it belongs only in the head (no <meta>, <link rel="canonical">, <title> or <base>), so nothing is lost`,
        why: `${why} Here only scripts, styles or body content follow it, which work the same in the body.`,
        fix: `No change needed now. Keep new metadata above the ${moved}, or move the ${moved} into the <body> (a tag manager's <noscript><iframe> belongs right after <body>).`,
      },
    };
  }
  return {
    severity: key.length > 0 ? 'medium' : 'low',
    finding: {
      id: 'head-broken',
      observed: `${what} on line ${broken.line} ends the <head> before the page's own </head>; read as part of the body after it: ${displaced.join(', ')}`,
      why: `${why} ${key.length > 0 ? `Search engines ignore ${key.join(', ')} there.` : 'The tags after that point are ignored by crawlers that read metadata only in the head.'}`,
      fix: `Move the ${moved} into the <body> (a tag manager's <noscript><iframe> belongs right after <body>), or move the metadata above it.`,
    },
  };
}
