// The one-line JSDoc examples of pure exported functions are code a reader copies: each listed here is read
// from its source file, evaluated, and compared with the value its comment promises. An example whose
// comment holds prose after the value (`// true; …`) is compared on its leading value only.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as markdownText from '@/lib/checks/markdown-text';
import * as access from '@/lib/checks/visibility/access';
import * as check from '@/lib/checks/visibility/check';
import * as crawlers from '@/lib/checks/visibility/crawlers';
import * as headBreak from '@/lib/checks/visibility/head-break';
import * as headBrokenFinding from '@/lib/checks/visibility/head-broken-finding';
import * as scoreBasis from '@/lib/checks/visibility/score-basis';
import * as hostMap from '@/lib/outbound/host-map';
import * as jsonld from '@/lib/checks/visibility/jsonld-requirements';
import * as llmsTxt from '@/lib/checks/visibility/llms-txt';
import * as outbound from '@/lib/outbound/outbound';
import * as rendererSettings from '@/lib/checks/visibility/render/settings';
import * as reportCaps from '@/lib/checks/visibility/report-caps';
import * as robots from '@/lib/checks/visibility/robots';
import * as accessItems from '@/lib/checks/visibility/rubric-items/access';
import * as agentItems from '@/lib/checks/visibility/rubric-items/agents';
import * as contentItems from '@/lib/checks/visibility/rubric-items/content';
import * as indexabilityItems from '@/lib/checks/visibility/rubric-items/indexability';
import * as shared from '@/lib/checks/visibility/rubric-items/shared';
import * as siteItems from '@/lib/checks/visibility/rubric-items/site';
import * as structuredDataItems from '@/lib/checks/visibility/rubric-items/structured-data';
import * as safeFetch from '@/lib/outbound/safe-fetch';
import * as siteSignals from '@/lib/checks/visibility/site-signals';
import * as words from '@/lib/checks/visibility/words';
import * as config from '@/lib/config';
import * as plans from '@/lib/credits/plans';
import * as log from '@/lib/log';
import * as price from '@/lib/price';
import * as problems from '@/lib/problems';
import * as requestContext from '@/lib/request-context';
import * as metadata from '@/lib/site/metadata';
import * as legal from '@/lib/site/legal';
import { StoreUnavailableError } from '@/lib/store/types';

const ROOT = path.resolve(__dirname, '../..');

/** Each file, the names its examples may use, and how each checked example starts. */
const CHECKED: Array<{ file: string; scope: object; examples: string[] }> = [
  { file: 'lib/checks/markdown-text.ts', scope: markdownText, examples: ['markdownText(', 'markdownCode('] },
  { file: 'lib/checks/visibility/access.ts', scope: access, examples: ['digestHtml('] },
  { file: 'lib/checks/visibility/check.ts', scope: check, examples: ['visibilityCheckDescription('] },
  { file: 'lib/checks/visibility/crawlers.ts', scope: { ...crawlers, ...robots }, examples: ['BROWSER_USER_AGENT.', 'decideCrawlers('] },
  { file: 'lib/checks/visibility/words.ts', scope: words, examples: ['wordsOf(', 'countWords(', 'isWhiteSpace('] },
  { file: 'lib/checks/visibility/head-break.ts', scope: headBreak, examples: ['headBreak('] },
  { file: 'lib/checks/visibility/head-broken-finding.ts', scope: headBrokenFinding, examples: ['headBrokenFinding('] },
  { file: 'lib/checks/visibility/score-basis.ts', scope: scoreBasis, examples: ['scoreBasisOf(', 'scoreBasisWords('] },
  { file: 'lib/outbound/host-map.ts', scope: hostMap, examples: ['parseHostMap(', 'resolveHostMap(undefined'] },
  { file: 'lib/checks/visibility/jsonld-requirements.ts', scope: jsonld, examples: ['jsonLdProblems('] },
  { file: 'lib/checks/visibility/llms-txt.ts', scope: llmsTxt, examples: ["isHtml('text/plain', '<!DOCTYPE", "isHtml('text/plain', '# Site", 'assessLlmsTxt('] },
  { file: 'lib/outbound/outbound.ts', scope: outbound, examples: ['registrableDomain('] },
  { file: 'lib/checks/visibility/render/settings.ts', scope: rendererSettings, examples: ['resolveRendererSettings('] },
  { file: 'lib/checks/visibility/report-caps.ts', scope: reportCaps, examples: ['cutString('] },
  { file: 'lib/checks/visibility/rubric-items/access.ts', scope: accessItems, examples: ['ACCESS_ITEMS.'] },
  { file: 'lib/checks/visibility/rubric-items/agents.ts', scope: agentItems, examples: ['AGENT_ITEMS.'] },
  { file: 'lib/checks/visibility/rubric-items/content.ts', scope: contentItems, examples: ['CONTENT_ITEMS.'] },
  { file: 'lib/checks/visibility/rubric-items/indexability.ts', scope: indexabilityItems, examples: ['INDEXABILITY_ITEMS.'] },
  { file: 'lib/checks/visibility/rubric-items/shared.ts', scope: shared, examples: ['pathOf('] },
  { file: 'lib/checks/visibility/rubric-items/site.ts', scope: siteItems, examples: ['SITE_ITEMS.'] },
  { file: 'lib/checks/visibility/rubric-items/structured-data.ts', scope: structuredDataItems, examples: ['STRUCTURED_DATA_ITEMS.'] },
  { file: 'lib/outbound/safe-fetch.ts', scope: safeFetch, examples: ['isPublicAddress('] },
  {
    file: 'lib/checks/visibility/site-signals.ts',
    scope: { ...siteSignals, ...robots },
    examples: [
      'markdownOffer(', 'markdownIsPage(', 'llmsTxtLinkTargets(', 'assessLlmsLinks(', 'sitemapEntries(', 'firstSitemapChild(', 'sitemapListsPage(',
      'contentUsage(', 'contentSignalConflicts(', 'tdmFromFile(', 'tdmFromPairs(', 'rslLicense(', 'licensing(',
    ],
  },
  { file: 'lib/config.ts', scope: config, examples: ['supportEmail(', 'operatorOf('] },
  { file: 'lib/credits/plans.ts', scope: plans, examples: ['planList('] },
  { file: 'lib/log.ts', scope: log, examples: ['scrubSecrets(', 'loggedPath('] },
  { file: 'lib/price.ts', scope: price, examples: ['formatUsd('] },
  { file: 'lib/problems.ts', scope: { ...problems, StoreUnavailableError, cause: new Error('connection lost') }, examples: ['knownProblem('] },
  { file: 'lib/request-context.ts', scope: requestContext, examples: ['requestIdFrom('] },
  { file: 'lib/site/metadata.ts', scope: metadata, examples: ['siteJsonLd('] },
  { file: 'lib/site/legal.ts', scope: legal, examples: ['longDate('] },
];

/** Evaluates `source` as an expression over `scope`; undefined when it is not one. */
function evaluate(source: string, scope: object): { value: unknown } | undefined {
  let fn: (...values: unknown[]) => unknown;
  try {
    fn = new Function(...Object.keys(scope), `return (${source});`) as typeof fn;
  } catch {
    return undefined;
  }
  return { value: fn(...Object.values(scope)) };
}

/** The longest leading part of a comment that is a value on its own (`true; more prose` → true). */
function promisedValue(comment: string): unknown {
  for (let end = comment.length; end > 0; end--) {
    const value = evaluate(comment.slice(0, end), {});
    if (value) return value.value;
  }
  throw new Error(`no value in the comment: ${comment}`);
}

/**
 * The `@example <expression> // <value>` whose expression starts with `start`; the value may stand on the
 * next comment line instead (` *   // <value>`).
 */
function exampleOf(file: string, start: string): { expression: string; promised: string } {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    const at = line.indexOf('@example ');
    if (at < 0) continue;
    const text = line.slice(at + '@example '.length).trim();
    if (!text.startsWith(start)) continue;
    const cut = text.indexOf(' // ');
    if (cut > 0) return { expression: text.slice(0, cut), promised: text.slice(cut + 4).trim() };
    const next = /^\s*\*\s*\/\/ (.+)$/.exec(lines[i + 1] ?? '');
    if (next) return { expression: text, promised: next[1].trim() };
  }
  throw new Error(`${file}: no @example starting with ${start} and followed by // <value>`);
}

describe('JSDoc examples', () => {
  for (const { file, scope, examples } of CHECKED) {
    for (const start of examples) {
      it(`${file}: ${start}… gives what its comment says`, () => {
        const { expression, promised } = exampleOf(file, start);
        const actual = evaluate(expression, scope);
        expect(actual, `${expression} is not an expression over ${file}'s exports`).toBeDefined();
        expect(actual!.value).toEqual(promisedValue(promised));
      });
    }
  }
});
