/**
 * robots.txt matcher for the AI Visibility Check, following RFC 9309 and the leniencies of
 * Google's reference parser (google/robotstxt, robots.cc).
 *
 * Why not `robots-parser` (3.0.1): on Google's 156 reference assertions it fails 19 (it keeps
 * `User-agent: Foo Bar` as the token "foo bar", ignores a missing colon, ...), and it cannot say
 * which group decided a verdict, which the report must show for every crawler. A differential run against
 * Google's C++ library on ~27,000 real robots.txt files agreed everywhere except three places where we follow
 * RFC 9309 and Google's library leaves the step to its caller: /robots.txt itself is always allowed, %xx hex
 * case is equivalent, and files are capped at 500 KiB.
 *
 * Everything here is pure: the fetcher resolves redirects and hands us a status and a body.
 */

/** RFC 9309 2.5 asks parsers to read at least 500 KiB; we read exactly that much. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/**
 * Google keeps at most 2083 * 8 - 1 bytes of a line (robots.cc, kMaxLineLen) and drops the rest,
 * so an over-long rule is cut rather than discarded. We mirror it so our verdicts agree with
 * Googlebot's on pathological files.
 */
const ROBOTS_MAX_LINE_BYTES = 2083 * 8 - 1;

type RobotsRuleKind = 'allow' | 'disallow';

interface RobotsRule {
  kind: RobotsRuleKind;
  /** The value as written (comment and surrounding whitespace removed). */
  value: string;
  /** The value after percent-encoding normalisation; this is what is matched and measured. */
  pattern: string;
  /**
   * Google treats `Allow: /dir/index.html` as also allowing `/dir/` (pattern `/dir/$`). Kept
   * separate so the reported rule is still the line the site wrote.
   */
  directoryPattern: string | null;
  /** The original line, trimmed: this is what a report quotes. */
  text: string;
  /** 1-based line number in the file. */
  line: number;
}

interface RobotsUserAgentLine {
  /**
   * The product token as written (`Googlebot` from `User-agent: Googlebot/2.1 # x`), `*` for the
   * global group, or `''` when the value starts with no token characters (it then names nobody).
   */
  token: string;
  text: string;
  line: number;
}

interface RobotsGroup {
  userAgents: RobotsUserAgentLine[];
  rules: RobotsRule[];
  /** Line of the group's first user-agent line. */
  line: number;
}

interface ContentSignalLine {
  /** The original line, trimmed, e.g. `Content-Signal: ai-train=no, search=yes`. */
  text: string;
  line: number;
  /** Index into `groups` of the group the line sat in, or null when it came before any group. */
  group: number | null;
}

export interface RobotsTxt {
  groups: RobotsGroup[];
  /** Values of `Sitemap:` lines, in file order, as written. */
  sitemaps: string[];
  /** Raw text of each `Content-Signal:` line, in file order (the report's site.robotsTxt). */
  contentSignals: string[];
  /** The same lines with their position and group, for findings that need the scope. */
  contentSignalLines: ContentSignalLine[];
  /** True when the body exceeded ROBOTS_MAX_BYTES and only its start was parsed. */
  truncated: boolean;
  /** Lines that parsers ignore, in file order, at most ROBOTS_IGNORED_LINES_MAX (the report's site.robotsTxt.ignoredLines). */
  ignoredLines: IgnoredLine[];
}

/**
 * Why a line does nothing: `rule-before-user-agent` (an Allow or Disallow before any User-agent line belongs to no
 * group, RFC 9309 2.1 and Google's parser), `pattern-not-a-path` (a pattern that starts with neither `/` nor `*`
 * cannot match a path, which always starts with `/`), `unknown-directive` (a key no crawler we know of reads).
 */
export type IgnoredLineReason = 'rule-before-user-agent' | 'pattern-not-a-path' | 'unknown-directive';
export const IGNORED_LINE_REASONS: readonly IgnoredLineReason[] = ['rule-before-user-agent', 'pattern-not-a-path', 'unknown-directive'];

export interface IgnoredLine {
  line: number;
  reason: IgnoredLineReason;
}

/** Ignored lines listed at most; a file with more is named by its first ones. */
export const ROBOTS_IGNORED_LINES_MAX = 20;

/**
 * Keys beyond RFC 9309 that some crawler or convention reads, so a line with one is not "ignored": Crawl-delay
 * (Bing, Yandex), Host and Clean-param (Yandex), Request-rate and Visit-time (older crawlers), Content-Signal,
 * Content-Usage (IETF aipref draft), License (RSL).
 */
const KNOWN_EXTENSION_KEYS: ReadonlySet<string> = new Set(['crawl-delay', 'host', 'clean-param', 'request-rate', 'visit-time', 'content-signal', 'content-usage', 'license']);

export interface RobotsVerdict {
  allowed: boolean;
  /** The exact robots.txt line that decided, or an explanation of the HTTP status case; null when no rule matched. */
  rule: string | null;
  line: number | null;
  /** The user-agent token of the group that applied, as written in the file, or `*`; null when no group applied. */
  group: string | null;
}

export type RobotsAccess =
  | { state: 'found'; status: number; robots: RobotsTxt }
  | { state: 'missing'; status: number; robots: null }
  | {
      state: 'unreachable';
      status: number | null;
      robots: null;
      /**
       * Set when the file answered 2xx but matching it against the page would cost more than
       * ROBOTS_MATCH_BUDGET: the verdicts are unknown, so the file counts as unreachable.
       */
      tooComplex?: { rules: number; pathLength: number; cost: number };
    };

export type RobotsState = RobotsAccess['state'];

// ---------------------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------------------

const utf8 = new TextEncoder();

function lineTooLong(s: string): boolean {
  // Every UTF-16 unit is at most 3 UTF-8 bytes, so most lines need no encoding.
  if (s.length * 3 <= ROBOTS_MAX_LINE_BYTES) return false;
  return utf8.encode(s).length > ROBOTS_MAX_LINE_BYTES;
}

/** Cuts `s` to at most `maxBytes` UTF-8 bytes without splitting a character. */
function cutUtf8(s: string, maxBytes: number): string {
  const bytes = utf8.encode(s);
  if (bytes.length <= maxBytes) return s;
  // stream: true holds back a trailing incomplete sequence instead of emitting U+FFFD.
  return new TextDecoder().decode(bytes.subarray(0, maxBytes), { stream: true });
}

/**
 * ASCII whitespace only, as Google's StripAsciiWhitespace. String#trim would also strip U+FEFF,
 * and a byte-order mark in the middle of a file must keep its line invalid (Google's behaviour).
 */
function stripAscii(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiSpace(s.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

/**
 * RFC 9309 2.2.2: octets outside US-ASCII must be percent-encoded before comparison, and
 * `%xx` compares case-insensitively. Like Google we encode non-ASCII as UTF-8 and uppercase
 * existing escapes, but we do it to both the pattern and the path so the comparison is
 * symmetric; unreserved characters that a site wrote encoded (`%62`) stay encoded, as in Google.
 */
export function normalisePercentEncoding(s: string): string {
  if (!/[%\u0080-\uffff]/.test(s)) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (ch === '%' && isHex(s[i + 1]) && isHex(s[i + 2])) {
      out += '%' + s[i + 1].toUpperCase() + s[i + 2].toUpperCase();
      i += 3;
    } else if (code < 0x80) {
      out += ch;
      i += 1;
    } else {
      let j = i + 1;
      while (j < s.length && s.charCodeAt(j) >= 0x80) j++;
      for (const byte of utf8.encode(s.slice(i, j))) {
        out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
      }
      i = j;
    }
  }
  return out;
}

/**
 * The product token at the start of a user-agent value: the leading run of `[A-Za-z_-]`
 * (RFC 9309 2.2.1; Google's ExtractUserAgent). `Googlebot/2.1` and `Googlebot Image` both give
 * `Googlebot`. Exported so callers can turn a `Name/version` string into the token to match.
 */
export function extractProductToken(value: string): string {
  const m = /^[A-Za-z_-]*/.exec(value);
  return m ? m[0] : '';
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

type KeyType = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'unknown';

/**
 * Prefix, case-insensitive key matching with Google's accepted typos. Prefix matching is
 * Google's (StartsWithIgnoreCase), so `Disallowed:` still counts as `Disallow:`.
 */
function keyType(key: string): KeyType {
  const k = key.toLowerCase();
  if (k.startsWith('user-agent') || k.startsWith('useragent') || k.startsWith('user agent')) {
    return 'user-agent';
  }
  if (k.startsWith('allow')) return 'allow';
  if (
    k.startsWith('disallow') ||
    k.startsWith('dissallow') ||
    k.startsWith('dissalow') ||
    k.startsWith('disalow') ||
    k.startsWith('diasllow') ||
    k.startsWith('disallaw')
  ) {
    return 'disallow';
  }
  if (k.startsWith('sitemap') || k.startsWith('site-map')) return 'sitemap';
  return 'unknown';
}

/** Splits a comment-free, stripped line into key and value, or null when it is not a directive. */
function splitDirective(content: string): { key: string; value: string } | null {
  let sep = content.indexOf(':');
  if (sep < 0) {
    // Google accepts a missing colon only when the line is exactly two whitespace-separated words.
    const ws = content.search(/[ \t]/);
    if (ws < 0) return null;
    const rest = content.slice(ws).replace(/^[ \t]+/, '');
    if (/[ \t]/.test(rest)) return null;
    sep = ws;
  }
  const key = stripAscii(content.slice(0, sep));
  if (key === '') return null;
  return { key, value: stripAscii(content.slice(sep + 1)) };
}

function userAgentToken(value: string): string {
  // Google: `*` followed by whitespace and more text is still the global agent.
  if (value.startsWith('*') && (value.length === 1 || isAsciiSpace(value.charCodeAt(1)))) return '*';
  return extractProductToken(value);
}

/** Google: an allow rule for `.../index.htm(l)` also allows the directory itself. */
function directoryPatternFor(pattern: string): string | null {
  const slash = pattern.lastIndexOf('/');
  if (slash < 0 || !pattern.startsWith('/index.htm', slash)) return null;
  return pattern.slice(0, slash + 1) + '$';
}

/** Applies the 500 KiB cap. A line cut in the middle is dropped: half a path would be a different rule. */
function capBody(text: string): { text: string; truncated: boolean } {
  if (text.length * 3 <= ROBOTS_MAX_BYTES) return { text, truncated: false };
  const cut = cutUtf8(text, ROBOTS_MAX_BYTES);
  if (cut.length === text.length) return { text, truncated: false };
  const nextChar = text[cut.length];
  if (nextChar === '\n' || nextChar === '\r') return { text: cut, truncated: true };
  const lastBreak = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf('\r'));
  return { text: lastBreak < 0 ? '' : cut.slice(0, lastBreak), truncated: true };
}

export function parseRobotsTxt(text: string): RobotsTxt {
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const capped = capBody(body);
  body = capped.text;

  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  const contentSignalLines: ContentSignalLine[] = [];
  const ignoredLines: IgnoredLine[] = [];
  const ignore = (line: number, reason: IgnoredLineReason) => {
    if (ignoredLines.length < ROBOTS_IGNORED_LINES_MAX) ignoredLines.push({ line, reason });
  };
  let current: RobotsGroup | null = null;
  // A user-agent line after a rule starts a new group; sitemap and unknown lines do not (Google).
  let currentHasRules = false;

  // CRLF is one line break; a lone CR or LF is one each (Google's line counting).
  const lines = body.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    let raw = lines[index];
    if (lineTooLong(raw)) raw = cutUtf8(raw, ROBOTS_MAX_LINE_BYTES);

    const hash = raw.indexOf('#');
    const content = stripAscii(hash < 0 ? raw : raw.slice(0, hash));
    if (content === '') continue;
    const directive = splitDirective(content);
    if (!directive) continue;
    const lineText = stripAscii(raw);

    switch (keyType(directive.key)) {
      case 'user-agent': {
        if (!current || currentHasRules) {
          current = { userAgents: [], rules: [], line: lineNumber };
          groups.push(current);
          currentHasRules = false;
        }
        current.userAgents.push({ token: userAgentToken(directive.value), text: lineText, line: lineNumber });
        break;
      }
      case 'allow':
      case 'disallow': {
        // RFC 9309: rules outside any group are ignored.
        if (!current) {
          ignore(lineNumber, 'rule-before-user-agent');
          break;
        }
        // An empty value is meaningful (Disallow: allows everything); any other must be a path or start with *.
        if (directive.value !== '' && !directive.value.startsWith('/') && !directive.value.startsWith('*')) ignore(lineNumber, 'pattern-not-a-path');
        const kind: RobotsRuleKind = keyType(directive.key) === 'allow' ? 'allow' : 'disallow';
        const pattern = normalisePercentEncoding(directive.value);
        current.rules.push({
          kind,
          value: directive.value,
          pattern,
          directoryPattern: kind === 'allow' ? directoryPatternFor(pattern) : null,
          text: lineText,
          line: lineNumber,
        });
        currentHasRules = true;
        break;
      }
      case 'sitemap': {
        if (directive.value !== '') sitemaps.push(directive.value);
        break;
      }
      case 'unknown': {
        if (!KNOWN_EXTENSION_KEYS.has(directive.key.toLowerCase())) ignore(lineNumber, 'unknown-directive');
        if (directive.key.toLowerCase() === 'content-signal') {
          contentSignalLines.push({
            text: lineText,
            line: lineNumber,
            group: current ? groups.length - 1 : null,
          });
        }
        break;
      }
    }
  }

  return {
    groups,
    sitemaps,
    contentSignals: contentSignalLines.map((l) => l.text),
    contentSignalLines,
    truncated: capped.truncated,
    ignoredLines,
  };
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/**
 * RFC 9309 2.2.3: `*` matches any run of characters, `$` anchors the end only as the last
 * character. Matching is anchored at the start of the path and case-sensitive. Greedy leftmost
 * placement of each literal segment is optimal here, so this stays linear in practice, unlike a
 * backtracking regex a site could make explode.
 */
export function patternMatches(path: string, pattern: string): boolean {
  let body = pattern;
  let anchored = false;
  if (body.endsWith('$')) {
    anchored = true;
    body = body.slice(0, -1);
  }
  const parts = body.split('*');
  const first = parts[0];
  if (!path.startsWith(first)) return false;
  if (parts.length === 1) return anchored ? path.length === first.length : true;

  let pos = first.length;
  const last = parts.length - 1;
  for (let i = 1; i < last; i++) {
    const at = path.indexOf(parts[i], pos);
    if (at < 0) return false;
    pos = at + parts[i].length;
  }
  const tail = parts[last];
  if (anchored) return path.length - tail.length >= pos && path.endsWith(tail);
  return path.indexOf(tail, pos) >= 0;
}

/** Match priority of a rule (RFC 9309: the number of octets of the pattern), or -1. */
function matchLength(path: string, rule: RobotsRule): number {
  if (patternMatches(path, rule.pattern)) return rule.pattern.length;
  if (rule.directoryPattern !== null && patternMatches(path, rule.directoryPattern)) {
    return rule.directoryPattern.length;
  }
  return -1;
}

/**
 * The path-plus-query to match, from a full URL: WHATWG URL already percent-encodes it and the
 * fragment is dropped. Returns `/` when the URL cannot be parsed.
 */
export function pathAndQueryOf(url: string | URL): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return (u.pathname || '/') + u.search;
  } catch {
    return '/';
  }
}

function normalisePath(pathAndQuery: string): string {
  let p = pathAndQuery;
  const hash = p.indexOf('#');
  if (hash >= 0) p = p.slice(0, hash);
  if (p === '') p = '/';
  else if (!p.startsWith('/')) p = '/' + p;
  return normalisePercentEncoding(p);
}

function sameToken(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The non-global user-agent line of `group` that names `token`, if any. */
function namingLine(group: RobotsGroup, token: string): RobotsUserAgentLine | undefined {
  return group.userAgents.find((ua) => ua.token !== '*' && ua.token !== '' && sameToken(ua.token, token));
}

/** Whether some group names `token` (case-insensitive, merged groups included). */
export function namesAgent(robots: RobotsTxt, token: string): boolean {
  return token !== '' && robots.groups.some((g) => namingLine(g, token) !== undefined);
}

/** A group that applies to a crawler, and the token it applies under (as written, or `*`). */
export interface AppliedGroup {
  group: RobotsGroup;
  token: string;
}

/**
 * The groups that decide for `productToken`: every group naming it (merged), else every `*`
 * group. Groups naming the token replace `*` entirely, even when none of their rules match
 * (RFC 9309 2.2.1).
 * @example appliedGroups(parseRobotsTxt('User-agent: *\nDisallow: /x\n'), 'GPTBot') // [{ group, token: '*' }]
 */
export function appliedGroups(robots: RobotsTxt, productToken: string): AppliedGroup[] {
  const named: AppliedGroup[] = [];
  for (const group of robots.groups) {
    const ua = productToken === '' ? undefined : namingLine(group, productToken);
    if (ua) named.push({ group, token: ua.token });
  }
  if (named.length > 0) return named;
  return robots.groups.filter((g) => g.userAgents.some((ua) => ua.token === '*')).map((group) => ({ group, token: '*' }));
}

/**
 * Verdict for one product token on one path. `productToken` is compared as given (pass
 * `GPTBot`, not a full user-agent string; see extractProductToken).
 */
export function robotsVerdict(robots: RobotsTxt, productToken: string, pathAndQuery: string): RobotsVerdict {
  return verdictOfGroups(appliedGroups(robots, productToken), pathAndQuery);
}

/**
 * The verdict the given groups give `pathAndQuery`: the longest matching rule, Allow on ties.
 * @example verdictOfGroups(appliedGroups(robots, 'GPTBot'), '/private/a')
 */
export function verdictOfGroups(applied: readonly AppliedGroup[], pathAndQuery: string): RobotsVerdict {
  const path = normalisePath(pathAndQuery);
  if (applied.length === 0) return { allowed: true, rule: null, line: null, group: null };

  // RFC 9309 2.2.2: /robots.txt is implicitly allowed.
  if (path === '/robots.txt') return { allowed: true, rule: null, line: null, group: applied[0].token };

  let best: { rule: RobotsRule; length: number; token: string } | null = null;
  for (const { group, token } of applied) {
    for (const rule of group.rules) {
      const length = matchLength(path, rule);
      if (length < 0) continue;
      // Longest match wins; on equal length Allow wins (RFC 9309 2.2.2); otherwise the first line.
      if (
        best === null ||
        length > best.length ||
        (length === best.length && rule.kind === 'allow' && best.rule.kind === 'disallow')
      ) {
        best = { rule, length, token };
      }
    }
  }

  if (best === null) return { allowed: true, rule: null, line: null, group: applied[0].token };
  return {
    // An empty `Disallow:` matches everything with length 0 and disallows nothing.
    allowed: best.rule.kind === 'allow' || best.length === 0,
    rule: best.rule.text,
    line: best.rule.line,
    group: best.token,
  };
}

// ---------------------------------------------------------------------------------------------
// Work bound
// ---------------------------------------------------------------------------------------------

/**
 * The most character comparisons (as estimated by matchCost) spent matching one page against one
 * robots.txt, all crawlers together: about 0.1 s on a busy machine. A 500 KiB file of `Disallow: /*ab`
 * lines against a 1,900-character path of `a`s costs about 65 million and took 45 s per check before
 * this bound; real files with thousands of rules and ordinary paths cost well under a million.
 */
export const ROBOTS_MATCH_BUDGET = 5_000_000;

/** Upper bound on the comparisons patternMatches makes for `pattern` on a path of `pathLength`. */
function patternCost(path: string, pattern: string): number {
  const star = pattern.indexOf('*');
  const literal = star < 0 ? pattern : pattern.slice(0, star);
  // A rule whose literal prefix does not start the path is decided by that comparison alone.
  if (star < 0 || !path.startsWith(literal)) return Math.min(literal.length, path.length) + 1;
  let stars = 0;
  for (let i = star; i >= 0; i = pattern.indexOf('*', i + 1)) stars++;
  return literal.length + stars * path.length;
}

/**
 * What matching `groups` against `pathAndQuery` costs, in estimated character comparisons; the
 * estimate depends only on the file and the path, so the same site always gets the same outcome.
 * @example matchCost(appliedGroups(robots, '*'), '/a/b') // small for ordinary files
 */
export function matchCost(groups: readonly AppliedGroup[], pathAndQuery: string): number {
  const path = normalisePath(pathAndQuery);
  let cost = 0;
  for (const { group } of groups) {
    for (const rule of group.rules) {
      cost += patternCost(path, rule.pattern);
      if (rule.directoryPattern !== null) cost += patternCost(path, rule.directoryPattern);
    }
  }
  return cost;
}

/**
 * The access a check falls back to when matching would exceed the budget: unreachable, which
 * RFC 9309 treats as a full disallow, with the measure for the finding.
 */
export function tooComplexAccess(access: Extract<RobotsAccess, { state: 'found' }>, pathAndQuery: string, cost: number): RobotsAccess {
  const rules = access.robots.groups.reduce((n, g) => n + g.rules.length, 0);
  return { state: 'unreachable', status: access.status, robots: null, tooComplex: { rules, pathLength: normalisePath(pathAndQuery).length, cost } };
}

// ---------------------------------------------------------------------------------------------
// Availability (RFC 9309 2.3.1)
// ---------------------------------------------------------------------------------------------

/**
 * Turns the fetch outcome into an access state. `status` is the final status after the fetcher
 * followed redirects; null means no HTTP answer (DNS, TLS, timeout, refused).
 *
 * - 2xx: parse the body.
 * - 3xx left over (the fetcher gave up after its redirect limit): RFC 9309 2.3.1.2 lets a
 *   crawler treat that as unavailable, so "missing" (allow all).
 * - 429: Google documents it as handled like a 5xx, not like other 4xx, so "unreachable".
 * - other 4xx: "unavailable" in RFC 9309 2.3.1.3, crawlers may access everything: "missing".
 * - 5xx, anything else, or no answer: "unreachable", RFC 9309 2.3.1.4 complete disallow.
 */
export function robotsFromResponse(status: number | null, body: string | null): RobotsAccess {
  if (status === null) return { state: 'unreachable', status: null, robots: null };
  if (status >= 200 && status < 300) return { state: 'found', status, robots: parseRobotsTxt(body ?? '') };
  if (status === 429) return { state: 'unreachable', status, robots: null };
  if (status >= 300 && status < 500) return { state: 'missing', status, robots: null };
  return { state: 'unreachable', status, robots: null };
}

function statusExplanation(access: Exclude<RobotsAccess, { state: 'found' }>): string {
  if (access.state === 'missing') {
    if (access.status >= 300 && access.status < 400) {
      return `robots.txt answered ${access.status} after the redirects we follow: RFC 9309 treats it as unavailable, so every path is allowed`;
    }
    return `robots.txt answered ${access.status}: RFC 9309 treats a 4xx robots.txt as unavailable, so every path is allowed`;
  }
  if (access.state === 'unreachable' && access.tooComplex) {
    const { rules, pathLength } = access.tooComplex;
    return `robots.txt has ${rules} rules whose wildcards would need more matching work against this ${pathLength}-character address than the check allows: it is treated as unreachable, which RFC 9309 makes a full disallow`;
  }
  if (access.status === null) {
    return 'robots.txt could not be fetched: RFC 9309 treats an unreachable robots.txt as the site being fully disallowed';
  }
  if (access.status === 429) {
    return 'robots.txt answered 429: Google handles 429 like a server error, and RFC 9309 treats the site as fully disallowed';
  }
  return `robots.txt answered ${access.status}: RFC 9309 treats the site as fully disallowed`;
}

/** robotsVerdict for any access state; for the status cases `rule` explains the decision. */
export function verdictFor(access: RobotsAccess, productToken: string, pathAndQuery: string): RobotsVerdict {
  if (access.state === 'found') return robotsVerdict(access.robots, productToken, pathAndQuery);
  return { allowed: access.state === 'missing', rule: statusExplanation(access), line: null, group: null };
}

/** The report's `site.robotsTxt` object. */
export function robotsSummary(access: RobotsAccess): {
  state: RobotsState;
  status: number | null;
  sitemaps: string[];
  contentSignals: string[];
  ignoredLines: IgnoredLine[];
} {
  return {
    state: access.state,
    status: access.status,
    sitemaps: access.robots ? [...access.robots.sitemaps] : [],
    contentSignals: access.robots ? [...access.robots.contentSignals] : [],
    ignoredLines: access.robots ? access.robots.ignoredLines.map((l) => ({ ...l })) : [],
  };
}
