// One answer to "may AI use this page, and who said so?": every usage signal the check reads, reconciled per
// use (training, search, input to AI answers). Pure functions on the analysis thread.
//
// Published precedence (AI_USE_PRECEDENCE):
// 1. Every source is the owner's own statement, and a crawler must honour every statement that applies to
//    it, so a refusal from any source outweighs a permission from another: the decision is `refused` when
//    one source refuses, `allowed` when at least one permits and none refuses, `unstated` otherwise.
// 2. Sources that disagree are listed in `conflicts` (finding `ai-use-conflict`): the owner said two things.
// 3. robots.txt counts only as a refusal (every crawler that exists for the use is disallowed from the
//    page). Being allowed to fetch is not a permission to use: robots.txt governs crawling, not use.
// 4. Within one source, its own specification decides (TDMRep: meta tag over header over file; Content-
//    Signal: `no` wins between lines of one group).
// Sources read: robots.txt rules, Content-Signal (robots.txt global lines and the response header), IETF
// aipref Content-Usage (header and robots.txt rule; a draft vocabulary), TDMRep (training only: it reserves
// text and data mining rights), the RSL licence (usage permits and prohibits), and noindex for search (Google
// and Bing document it). `noai`/`noimageai` are not read as a refusal: no crawler vendor documents them.

import { CRAWLERS, type CrawlerRole } from './crawlers';
import { patternMatches } from './robots';
import type { RslReport } from './rsl';
import type { ContentUsage, Licensing } from './site-signals';

export const AI_USES = ['train', 'search', 'aiInput'] as const;
export type AiUseKey = (typeof AI_USES)[number];
type AiUseDecision = 'allowed' | 'refused' | 'unstated';

/** Sources listed per use, at most. */
export const AI_USE_SOURCES_MAX = 4;

export const AI_USE_PRECEDENCE =
  'A refusal from any source outweighs a permission from another; robots.txt counts only as a refusal (every crawler for the use disallowed); within one source its own rules decide (TDMRep: meta over header over file).';

interface AiUseSource {
  /** Which signal: robots.txt, content-signal, content-signal-header, content-usage (draft), content-usage-header (draft), tdmrep, rsl, noindex. */
  source: string;
  says: 'allowed' | 'refused';
  /** What it said, as written (a line, a header value, a licence term). */
  detail: string;
}

interface AiUseAnswer {
  decision: AiUseDecision;
  sources: AiUseSource[];
  /** Sources that say the opposite of the decision (non-empty only when sources disagree). */
  conflicts: string[];
}

export type AiUse = Record<AiUseKey, AiUseAnswer>;

export interface AiUseInput {
  /** The page path and query, to match robots.txt rules with a path. */
  pagePath: string;
  robotsBody: string | null;
  robotsFound: boolean;
  /** robots.txt verdicts for this page. */
  crawlers: ReadonlyArray<{ token: string; role: string; allowed: boolean }>;
  contentUsage: readonly ContentUsage[];
  /** Values of the page's Content-Signal and Content-Usage response headers. */
  contentSignalHeader: readonly string[];
  contentUsageHeader: readonly string[];
  licensing: Licensing;
  rsl: RslReport | null;
  noindex: boolean;
}

const ROLE_OF_USE: Record<AiUseKey, CrawlerRole> = { train: 'ai-training', search: 'search', aiInput: 'ai-answers' };
const SIGNAL_KEYS: Record<string, AiUseKey> = { 'ai-train': 'train', search: 'search', 'ai-input': 'aiInput' };
// aipref vocabulary (draft): `bots` covers every automated use; `train-ai` and `train-genai` training; `search`.
const USAGE_KEYS: Record<string, readonly AiUseKey[]> = { bots: AI_USES, 'train-ai': ['train'], 'train-genai': ['train'], search: ['search'] };
// RSL 1.0 usage tokens.
const RSL_KEYS: Record<string, readonly AiUseKey[]> = { all: AI_USES, 'ai-all': ['train', 'aiInput'], 'ai-train': ['train'], 'ai-input': ['aiInput'], 'ai-index': ['search'], search: ['search'] };

/** `key=value` pairs of a comma-separated list (Content-Signal, and the RFC 9651 dictionary of Content-Usage). */
function pairs(text: string): Array<[string, string]> {
  return text.split(',').flatMap((part): Array<[string, string]> => {
    const eq = part.indexOf('=');
    if (eq < 0) return [];
    return [[part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim().toLowerCase().replace(/^"|"$/g, '')]];
  });
}

/**
 * The robots.txt `Content-Usage:` rules (aipref attach draft) that apply to every crawler for this page: in
 * a group whose user-agents include `*`, or outside any group; an optional path before the preferences
 * limits the rule to paths it matches.
 * @example contentUsageRules('User-agent: *\nContent-Usage: train-ai=n\n', '/a') // ['train-ai=n']
 */
export function contentUsageRules(robotsBody: string | null, pagePath: string): string[] {
  if (!robotsBody) return [];
  const out: string[] = [];
  let star = true;
  let lastWasAgent = false;
  for (const raw of robotsBody.split(/\r\n|\r|\n/)) {
    const hash = raw.indexOf('#');
    const line = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      star = lastWasAgent ? star || value === '*' : value === '*';
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key !== 'content-usage' || !star || out.length >= AI_USE_SOURCES_MAX) continue;
    const space = value.search(/\s/);
    const first = space < 0 ? value : value.slice(0, space);
    if (first.startsWith('/') || first.startsWith('*')) {
      if (space >= 0 && patternMatches(pagePath, first)) out.push(value.slice(space + 1).trim());
    } else out.push(value);
  }
  return out;
}

/**
 * Reconciles the usage signals into one answer per use, with the sources and any conflict.
 * @example aiUse(input).train // { decision: 'refused', sources: [{ source: 'tdmrep', says: 'refused', detail: 'tdm-reservation 1 (header)' }], conflicts: [] }
 */
export function aiUse(input: AiUseInput): AiUse {
  const sources: Record<AiUseKey, AiUseSource[]> = { train: [], search: [], aiInput: [] };
  const add = (use: AiUseKey, source: string, says: AiUseSource['says'], detail: string) => {
    if (sources[use].length < AI_USE_SOURCES_MAX) sources[use].push({ source, says, detail });
  };

  if (input.robotsFound) {
    for (const use of AI_USES) {
      const role = ROLE_OF_USE[use];
      const tokens = new Set(CRAWLERS.filter((c) => c.role === role && !c.userTriggered).map((c) => c.token));
      const verdicts = input.crawlers.filter((c) => tokens.has(c.token));
      if (verdicts.length > 0 && verdicts.every((v) => !v.allowed)) add(use, 'robots.txt', 'refused', `disallows ${verdicts.map((v) => v.token).join(', ')}`);
    }
  }
  const global = input.contentUsage.find((u) => u.userAgent === '*');
  if (global) {
    for (const [key, use] of Object.entries(SIGNAL_KEYS)) {
      const v = global.signals[key as keyof ContentUsage['signals']];
      if (v !== null) add(use, 'content-signal', v === 'yes' ? 'allowed' : 'refused', `robots.txt line ${global.lines.join(', ')}: ${key}=${v}`);
    }
  }
  for (const header of input.contentSignalHeader.slice(0, 3)) {
    for (const [key, value] of pairs(header)) {
      const use = SIGNAL_KEYS[key];
      if (use && (value === 'yes' || value === 'no')) add(use, 'content-signal-header', value === 'yes' ? 'allowed' : 'refused', `Content-Signal: ${key}=${value}`);
    }
  }
  const usage = [
    ...input.contentUsageHeader.slice(0, 3).map((v) => ['content-usage-header (draft)', v] as const),
    ...contentUsageRules(input.robotsBody, input.pagePath).map((v) => ['content-usage (draft)', v] as const),
  ];
  for (const [source, value] of usage) {
    for (const [key, pref] of pairs(value)) {
      if (pref !== 'y' && pref !== 'n') continue;
      for (const use of USAGE_KEYS[key] ?? []) add(use, source, pref === 'y' ? 'allowed' : 'refused', `Content-Usage: ${key}=${pref}`);
    }
  }
  const lic = input.licensing;
  if (lic.tdmReservation !== null) add('train', 'tdmrep', lic.tdmReservation === 1 ? 'refused' : 'allowed', `tdm-reservation ${lic.tdmReservation} (${lic.tdmSource})`);
  if (input.rsl?.valid) {
    for (const [list, says] of [['permits', 'allowed'], ['prohibits', 'refused']] as const) {
      for (const token of input.rsl[list]) for (const use of RSL_KEYS[token] ?? []) add(use, 'rsl', says, `<${list} type="usage">${token}`);
    }
  }
  if (input.noindex) add('search', 'noindex', 'refused', 'noindex (robots meta tag or X-Robots-Tag)');

  const answer = (list: AiUseSource[]): AiUseAnswer => {
    const refused = list.some((s) => s.says === 'refused');
    const allowed = list.some((s) => s.says === 'allowed');
    const decision: AiUseDecision = refused ? 'refused' : allowed ? 'allowed' : 'unstated';
    const conflicts = refused && allowed ? [...new Set(list.filter((s) => s.says === 'allowed').map((s) => s.source))] : [];
    return { decision, sources: list, conflicts };
  };
  return { train: answer(sources.train), search: answer(sources.search), aiInput: answer(sources.aiInput) };
}
