// What the visibility check publishes that the site's browser bundle shows too (its rubric on /docs/checks, its
// card on the home page, its form's length check): plain values with no imports, so the browser loads them
// without the check that fetches.

/**
 * The most of a page's HTML the check reads: 2 MiB. Real news and shop pages run past 512 KiB (inline state,
 * styles and data before the article), and their content comes after; past 2 MiB a page is read up to the cut and
 * the report says which facts may be incomplete.
 */
export const PAGE_READ_MAX_BYTES = 2 * 1024 * 1024;

/** The longest address the check accepts, in characters: the URL rules' MAX_URL_LENGTH (lib/outbound/target-url.ts), which a test holds it to. */
export const MAX_ADDRESS_LENGTH = 2000;

/** What the check does, in one paragraph: its description, and its card's text on the home page. */
export const VISIBILITY_SUMMARY =
  'Fetches one public page, the page again as Markdown, and its site files (robots.txt, sitemap, llms.txt and up to 5 of its links, llms-full.txt, tdmrep.json, the well-known agent surfaces, the AI Catalog and the cards it lists, the RSL licence it names), reports what 16 search and AI crawlers may fetch under robots.txt, what agents can read and use beyond the page, whether AI may train on, search or answer from it and who said so, and what a crawler must pay, and scores the page 0-100 against the published rubric, with findings ordered by severity. Nothing is charged when the page cannot be fetched.';
