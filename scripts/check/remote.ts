import { fieldsOf } from '@/lib/checks/entry';
import { visibilityReport } from '@/lib/checks/visibility/report';
import { reportPagePath } from '@/lib/reports/store';

// `npm run check -- <url> --api <base>`: the check as a customer's CI runs it, one paid call to a deployed
// service with a prepaid credits key. Plain functions over fetch, so tests call them without a child process.

/** Where the check is served, relative to the service's base address (the REST route of lib/endpoints.ts). */
const VISIBILITY_PATH = '/api/agent/ai-visibility';
/** A check fetches and renders a whole page and its site files; past this the CLI stops waiting. */
const CALL_TIMEOUT_MS = 180_000;
/**
 * A 429 (the site's checks per minute, shared by every caller, or a rate limit) charges nothing and says when to
 * come back: a batch of one site's pages meets it after a few pages, so the CLI waits that long, a few times.
 */
const RETRY_AFTER_MAX_SECONDS = 90;
const RETRIES_429 = 3;

/** How the CLI ends: documented in docs/VISIBILITY.md, and CI steps branch on them. */
/** A gate fails with 1, as a failed assertion does in CI tools; a refusal is 2; a crash is 4, apart from both. */
export const EXIT = { ok: 0, belowThreshold: 1, refused: 2, unexpected: 4 } as const;

/** The report's page beside its JSON: a key paid, so its owner can sign in and read the page MCP's reportUrl names. */
function reportLinks(link: string | undefined, base: string): { reportUrl: string | null; reportApiUrl: string | null } {
  if (!link) return { reportUrl: null, reportApiUrl: null };
  const api = new URL(link, `${base}/`);
  const id = /^\/api\/reports\/([^/]+)$/.exec(api.pathname)?.[1];
  return { reportUrl: id ? new URL(reportPagePath(decodeURIComponent(id)), api).href : api.href, reportApiUrl: api.href };
}

/** What one paid call came back with: a report, or the service's refusal in its own words. */
export type ServiceAnswer =
  | {
      kind: 'report';
      url: string;
      body: Record<string, unknown>;
      score: number;
      /** The report's page, which a person opens after signing in with the key that paid (null: none named). */
      reportUrl: string | null;
      /** The same report as JSON (the Link header's address). */
      reportApiUrl: string | null;
      creditsRemaining: number | null;
    }
  | { kind: 'refused'; url: string; status: number; title: string; detail: string; errors: string[] };

export interface ServiceTarget {
  /** The service's base address, e.g. https://checks.example.com. */
  base: string;
  /** A prepaid credits key (pac_live_…); sent only as the Bearer credential. */
  key: string;
}

/**
 * One AI Visibility Check through the service: POST {url} with the key as Bearer. A problem+json answer is
 * returned as `refused` with its words (the service says there when nothing was charged); so is an answer
 * that is not the service's own (a proxy's HTML page) and a service that cannot be reached. A 429 with a short
 * Retry-After is waited out (told to `onWait`) and the call sent again, up to RETRIES_429 times.
 * @example const answer = await checkThroughService({ base: 'https://checks.example.com', key }, 'https://example.com/');
 */
export async function checkThroughService(target: ServiceTarget, url: string, onWait?: (seconds: number, refusal: string) => void): Promise<ServiceAnswer> {
  for (let retry = 0; ; retry++) {
    const { answer, res } = await postOnce(target, url);
    const header = res?.headers.get('retry-after') ?? '';
    const retryAfter = /^\d+$/.test(header) ? Number(header) : null;
    if (answer.kind === 'report' || answer.status !== 429 || retryAfter === null || retryAfter > RETRY_AFTER_MAX_SECONDS || retry === RETRIES_429) return answer;
    onWait?.(retryAfter, refusalText(answer));
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}

/** One POST: what it came back with, and the response (absent when none came) for its headers. */
async function postOnce(target: ServiceTarget, url: string): Promise<{ answer: ServiceAnswer; res?: Response }> {
  let base = target.base;
  while (base.endsWith('/')) base = base.slice(0, -1);
  let res: Response;
  try {
    res = await fetch(`${base}${VISIBILITY_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'paid-agent-checks-cli' },
      body: JSON.stringify({ url }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      // A redirect would carry the key to wherever it points (or drop it): name the address to use instead.
      redirect: 'manual',
    });
  } catch (error) {
    const cause = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${CALL_TIMEOUT_MS / 1000} s` : causeOf(error);
    return { answer: { kind: 'refused', url, status: 0, title: 'Service not reached', detail: `${base}: ${cause}`, errors: [] } };
  }
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location');
    return { res, answer: { kind: 'refused', url, status: res.status, title: 'Redirected', detail: `${base} redirects${to ? ` to ${new URL(to, `${base}/`).origin}` : ''}: pass that address as --api`, errors: [] } };
  }
  const json = await res.json().then(
    (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null),
    () => null,
  );
  if (res.status === 200 && json && typeof fieldsOf(json.report).score === 'number') {
    const link = /^<([^>]+)>/.exec(res.headers.get('link') ?? '')?.[1];
    const credits = res.headers.get('credits-remaining');
    const answer: ServiceAnswer = {
      kind: 'report',
      url,
      body: json,
      score: fieldsOf(json.report).score as number,
      ...reportLinks(link, base),
      creditsRemaining: credits === null || !/^\d+$/.test(credits) ? null : Number(credits),
    };
    return { res, answer };
  }
  if (json && typeof json.title === 'string') {
    const errors = Array.isArray(json.errors) ? json.errors.map((e) => `${fieldsOf(e).path ?? '$'}: ${fieldsOf(e).message ?? ''}`) : [];
    return { res, answer: { kind: 'refused', url, status: res.status, title: json.title, detail: typeof json.detail === 'string' ? json.detail : '', errors } };
  }
  return { res, answer: { kind: 'refused', url, status: res.status, title: 'Unexpected answer', detail: `HTTP ${res.status} from ${base} was not a report or a problem (is --api the service's address?)`, errors: [] } };
}

/**
 * A refusal in words, one line (and one per bad field): what a CI log shows.
 * @example refusalText({ kind: 'refused', url, status: 401, title: 'Invalid credits key', detail: 'The credits key is not valid.', errors: [] }) // '401 Invalid credits key: The credits key is not valid.'
 */
export function refusalText(answer: Extract<ServiceAnswer, { kind: 'refused' }>): string {
  const head = `${answer.status === 0 ? '' : `${answer.status} `}${answer.title}${answer.detail ? `: ${answer.detail}` : ''}`;
  return [head, ...answer.errors.map((e) => `  ${e}`)].join('\n');
}

/**
 * The verdict and the finding to fix first, read member by member (a service of another version still gives them).
 * @example const { verdict, topFinding } = reportGist(answer.body);
 */
export function reportGist(body: unknown): { verdict: string; topFinding: string } {
  const [first] = visibilityReport.topFixes?.(body) ?? [];
  return {
    verdict: visibilityReport.headline?.(body)?.verdict ?? '',
    topFinding: first ? `${first.title}${first.pointsLost > 0 ? ` (-${first.pointsLost})` : ''}` : '-',
  };
}

/**
 * The exit code of a run: any refusal (2) outweighs a score under the threshold (3); without a threshold a
 * report is a success whatever its score.
 * @example gateExit([{ kind: 'report', score: 72, … }], 80) // 3
 */
export function gateExit(answers: ServiceAnswer[], failUnder: number | undefined): number {
  if (answers.some((a) => a.kind === 'refused')) return EXIT.refused;
  if (failUnder !== undefined && answers.some((a) => a.kind === 'report' && a.score < failUnder)) return EXIT.belowThreshold;
  return EXIT.ok;
}

/**
 * Why a fetch failed, in the words of its cause (undici's "fetch failed" says nothing).
 * @example causeOf(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') })) // 'connect ECONNREFUSED 127.0.0.1:9'
 */
export function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
