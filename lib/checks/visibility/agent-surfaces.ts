// What a site offers agents beyond its pages: the page's Link header relations (RFC 8288) and the
// well-known documents agents look for. Pure functions over what was fetched, run on the analysis thread;
// signal-fetches.ts fetches. Every loop moves forward over its input, so the work stays linear in the
// (capped) bytes a site sent.
//
// Which documents, and what each must hold to count as valid:
// - `/.well-known/api-catalog` (RFC 9727): a linkset (RFC 9264, `application/linkset+json`), an object
//   whose `linkset` is a list of link context objects, each with an `anchor`.
// - `/.well-known/mcp/server-card`: the MCP Server Card of the current proposal (SEP-2127, "MCP Server
//   Cards - HTTP Server Discovery via .well-known"): `$schema`, `name` in reverse-DNS form with exactly one
//   `/`, `version` and a `capabilities` object are required.
// - `/.well-known/agent-card.json` (A2A): `name`, `description`, `version`, `capabilities`,
//   `defaultInputModes`, `defaultOutputModes` and `skills`, and where to call it: `supportedInterfaces`
//   (A2A 1.0) or the top-level `url` of earlier versions.
// - `/.well-known/oauth-authorization-server` (RFC 8414): `issuer`, identical to the origin the document
//   was fetched from, and `response_types_supported`.
// - `/.well-known/oauth-protected-resource` (RFC 9728): `resource`, identical to the origin.
// - `/.well-known/http-message-signatures-directory` (Web Bot Auth directory draft): served as
//   `application/http-message-signatures-directory+json`, a JWKS (`keys`, each with `kty`) holding no
//   private key members.
// - `/.well-known/agent-skills/index.json` (Agent Skills Discovery, index schema 0.2.0): an object whose
//   `skills` is a list; each skill has a `name` as the Agent Skills specification allows it (1-64 lowercase
//   letters, digits and single hyphens, not at either end), a `description`, a `type` (`skill-md` for one
//   SKILL.md, `archive` for a packed skill directory), the `url` to fetch it from and its `digest`
//   (`sha256:` and 64 hex digits) so an agent can tell the file it fetched is the one listed.
//
// A 2xx HTML answer at a well-known address is not a published document: it reads `soft-404` when it is the
// site's catch-all page (the page a path that cannot exist gets, soft-404.ts), `missing` when it is another
// page; never `invalid`, so a site that never meant to publish one is not told it published it wrong.

import { isHtml } from './llms-txt';
import { isSoftNotFound } from './soft-404';
import type { AiCatalog } from './ai-catalog';
import type { WebMcp } from './webmcp';

export const SURFACE_KINDS = ['apiCatalog', 'mcpServerCard', 'a2aAgentCard', 'oauthAuthorizationServer', 'oauthProtectedResource', 'webBotAuthDirectory', 'agentSkills'] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

/** The well-known path each surface is fetched from. */
export const SURFACE_PATHS: Readonly<Record<SurfaceKind, string>> = {
  apiCatalog: '/.well-known/api-catalog',
  mcpServerCard: '/.well-known/mcp/server-card',
  a2aAgentCard: '/.well-known/agent-card.json',
  oauthAuthorizationServer: '/.well-known/oauth-authorization-server',
  oauthProtectedResource: '/.well-known/oauth-protected-resource',
  webBotAuthDirectory: '/.well-known/http-message-signatures-directory',
  agentSkills: '/.well-known/agent-skills/index.json',
};

/** What each surface is asked for with. */
export const SURFACE_ACCEPT: Readonly<Record<SurfaceKind, string>> = {
  apiCatalog: 'application/linkset+json,application/json;q=0.9,*/*;q=0.5',
  mcpServerCard: 'application/json,*/*;q=0.5',
  a2aAgentCard: 'application/json,*/*;q=0.5',
  oauthAuthorizationServer: 'application/json,*/*;q=0.5',
  oauthProtectedResource: 'application/json,*/*;q=0.5',
  webBotAuthDirectory: 'application/http-message-signatures-directory+json,application/json;q=0.9,*/*;q=0.5',
  agentSkills: 'application/json,*/*;q=0.5',
};

/** Problems listed per surface, at most. */
export const SURFACE_PROBLEMS_MAX = 2;
/** Link header relations listed, at most. */
export const LINK_RELATIONS_MAX = 6;

type SurfaceStatus = 'found' | 'missing' | 'invalid' | 'unreachable' | 'soft-404';

/** One entry of `site.agentSurfaces` (other than `linkHeaders` and `webMcp`). */
export interface AgentSurface {
  url: string;
  status: SurfaceStatus;
  valid: boolean;
  httpStatus: number | null;
  /** The name the document gives itself (server, agent, issuer, resource); null when none. */
  name: string | null;
  /** What it lists: catalog entries, tools, skills, keys, authorization servers; null when not applicable. */
  entries: number | null;
  /** Why it is invalid (or what it lacks), in words. */
  problems: string[];
}

/** One `Link` header relation of the page. */
export interface LinkRelation {
  rel: string;
  href: string;
  type: string | null;
}

/** `site.agentSurfaces`. */
export interface AgentSurfaces extends Record<SurfaceKind, AgentSurface> {
  linkHeaders: LinkRelation[];
  /** The AI Catalog (ai-catalog.ts), wherever the site says it is; null when it was not looked for. */
  aiCatalog: AiCatalog | null;
  /** WebMCP tools the rendered page registers and its forms (webmcp.ts); null when the page was not rendered. */
  webMcp: WebMcp | null;
}

/** A surface as fetched. */
export interface SurfaceFile {
  url: string;
  status: number | null;
  contentType: string | null;
  body: string | null;
  truncated: boolean;
}

// ---------------------------------------------------------------------------------------------
// RFC 8288 Link header
// ---------------------------------------------------------------------------------------------

/** Reads one quoted-string or token parameter value starting at `at`; returns [value, next index]. */
function paramValue(s: string, at: number): [string, number] {
  if (s[at] === '"') {
    let out = '';
    let i = at + 1;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      out += s[i];
      i++;
    }
    return [out, i + 1];
  }
  let i = at;
  while (i < s.length && s[i] !== ';' && s[i] !== ',') i++;
  return [s.slice(at, i).trim(), i];
}

/**
 * The relations of the page's `Link` header fields (RFC 8288 §3): each link's target resolved against the
 * page, one entry per relation type of a multi-valued `rel`, in header order, at most LINK_RELATIONS_MAX.
 * Parsed in one forward scan.
 * @example linkHeaderRelations(['</.well-known/api-catalog>; rel="api-catalog"'], 'https://s.test/') // [{ rel: 'api-catalog', href: 'https://s.test/.well-known/api-catalog', type: null }]
 */
export function linkHeaderRelations(values: readonly string[], base: string): LinkRelation[] {
  const out: LinkRelation[] = [];
  for (const value of values) {
    let at = 0;
    while (at < value.length && out.length < LINK_RELATIONS_MAX) {
      const lt = value.indexOf('<', at);
      if (lt < 0) break;
      const gt = value.indexOf('>', lt + 1);
      if (gt < 0) break;
      const target = value.slice(lt + 1, gt).trim();
      let rel: string | null = null;
      let type: string | null = null;
      let i = gt + 1;
      // Parameters until the comma that ends this link-value.
      while (i < value.length && value[i] !== ',') {
        if (value[i] !== ';') {
          i++;
          continue;
        }
        let nameEnd = i + 1;
        while (nameEnd < value.length && !'=;,'.includes(value[nameEnd])) nameEnd++;
        const name = value.slice(i + 1, nameEnd).trim().toLowerCase();
        if (value[nameEnd] !== '=') {
          i = nameEnd;
          continue;
        }
        let v = nameEnd + 1;
        while (v < value.length && value[v] === ' ') v++;
        const [param, next] = paramValue(value, v);
        // RFC 8288 §3: occurrences after the first of rel are ignored.
        if (name === 'rel' && rel === null) rel = param;
        else if (name === 'type' && type === null) type = param.trim().toLowerCase() || null;
        i = next;
      }
      at = i + 1;
      if (rel === null) continue;
      let href: string;
      try {
        href = new URL(target, base).href;
      } catch {
        continue;
      }
      for (const r of rel.toLowerCase().split(/\s+/)) {
        if (r !== '' && out.length < LINK_RELATIONS_MAX) out.push({ rel: r, href, type });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Well-known documents
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const mediaTypeOf = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/** What one document's checker finds: its problems, and the name and count a reader needs. */
interface Checked {
  problems: string[];
  name: string | null;
  entries: number | null;
}

function required(doc: Json, members: readonly string[], problems: string[]): void {
  const absent = members.filter((m) => doc[m] === undefined || doc[m] === null);
  if (absent.length > 0) problems.push(`lacks the required member${absent.length > 1 ? 's' : ''} ${absent.join(', ')}`);
}

function checkApiCatalog(doc: Json, contentType: string | null): Checked {
  const problems: string[] = [];
  const linkset = doc.linkset;
  if (!Array.isArray(linkset)) problems.push('has no "linkset" list (RFC 9264 JSON linkset)');
  else if (linkset.some((c) => !isObject(c) || !isText(c.anchor))) problems.push('has a link context object without an "anchor"');
  if (mediaTypeOf(contentType) !== 'application/linkset+json') problems.push(`is served as ${mediaTypeOf(contentType) || 'no media type'}, not application/linkset+json`);
  return { problems, name: null, entries: Array.isArray(linkset) ? linkset.length : null };
}

function checkMcpServerCard(doc: Json): Checked {
  const problems: string[] = [];
  required(doc, ['$schema', 'name', 'version', 'capabilities'], problems);
  if (doc.name !== undefined && (!isText(doc.name) || doc.name.split('/').length !== 2)) problems.push('"name" is not in reverse-DNS form with exactly one "/"');
  if (doc.capabilities !== undefined && !isObject(doc.capabilities)) problems.push('"capabilities" is not an object');
  return { problems, name: isText(doc.name) ? doc.name : null, entries: Array.isArray(doc.tools) ? doc.tools.length : null };
}

function checkA2aAgentCard(doc: Json): Checked {
  const problems: string[] = [];
  required(doc, ['name', 'description', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'], problems);
  const interfaces = Array.isArray(doc.supportedInterfaces) && doc.supportedInterfaces.length > 0;
  if (!interfaces && !isText(doc.url)) problems.push('names no address to call the agent at ("supportedInterfaces", or "url" before A2A 1.0)');
  if (doc.skills !== undefined && !Array.isArray(doc.skills)) problems.push('"skills" is not a list');
  return { problems, name: isText(doc.name) ? doc.name : null, entries: Array.isArray(doc.skills) ? doc.skills.length : null };
}

function sameOrigin(value: unknown, origin: string): boolean {
  if (!isText(value)) return false;
  try {
    const u = new URL(value);
    // RFC 8414 §3.3 and RFC 9728 §3.3: the identifier must be the one the well-known address was built from;
    // for an origin-level document that is the origin, with or without a trailing slash.
    return u.origin === origin && (u.pathname === '/' || u.pathname === '') && u.search === '';
  } catch {
    return false;
  }
}

function checkOauthServer(doc: Json, origin: string): Checked {
  const problems: string[] = [];
  required(doc, ['issuer', 'response_types_supported'], problems);
  if (doc.issuer !== undefined && !sameOrigin(doc.issuer, origin)) problems.push(`"issuer" is not ${origin}, the address the metadata was fetched from`);
  return { problems, name: isText(doc.issuer) ? doc.issuer : null, entries: Array.isArray(doc.grant_types_supported) ? doc.grant_types_supported.length : null };
}

function checkProtectedResource(doc: Json, origin: string): Checked {
  const problems: string[] = [];
  required(doc, ['resource'], problems);
  if (doc.resource !== undefined && !sameOrigin(doc.resource, origin)) problems.push(`"resource" is not ${origin}, the address the metadata was fetched from`);
  const servers = doc.authorization_servers;
  return { problems, name: isText(doc.resource) ? doc.resource : null, entries: Array.isArray(servers) ? servers.length : null };
}

// JWK members that only a private (or symmetric) key has (RFC 7518 §6.2.2, §6.3.2, §6.4.1).
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function checkBotAuthDirectory(doc: Json, contentType: string | null): Checked {
  const problems: string[] = [];
  const keys = doc.keys;
  if (!Array.isArray(keys) || keys.length === 0) problems.push('has no "keys" list of public keys (JWKS)');
  else {
    if (keys.some((k) => !isObject(k) || !isText(k.kty))) problems.push('has a key without "kty"');
    const leaked = keys.filter((k) => isObject(k) && PRIVATE_JWK_MEMBERS.some((m) => k[m] !== undefined)).length;
    if (leaked > 0) problems.push(`publishes private key material (${leaked} key${leaked > 1 ? 's' : ''} with ${PRIVATE_JWK_MEMBERS.join('/')} members): replace those keys now`);
  }
  if (mediaTypeOf(contentType) !== 'application/http-message-signatures-directory+json') {
    problems.push(`is served as ${mediaTypeOf(contentType) || 'no media type'}, not application/http-message-signatures-directory+json`);
  }
  return { problems, name: null, entries: Array.isArray(keys) ? keys.length : null };
}

// Agent Skills specification: a skill name is lowercase letters, digits and hyphens, no hyphen at either end
// and never two in a row.
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SKILL_TYPES = ['skill-md', 'archive'];
const SKILL_DIGEST = /^sha256:[0-9a-f]{64}$/;

function checkAgentSkills(doc: Json, base: string): Checked {
  const problems: string[] = [];
  const skills = doc.skills;
  if (!Array.isArray(skills)) return { problems: ['has no "skills" list'], name: null, entries: null };
  // One sentence per kind of fault, naming the first skill that has it: a long index broken the same way
  // throughout reads as one problem, not a hundred.
  const first = (fault: (s: Json) => boolean) => skills.findIndex((s) => !isObject(s) || fault(s));
  const faults: Array<[string, (s: Json) => boolean]> = [
    ['has a "name" the Agent Skills specification does not allow (1-64 lowercase letters, digits and single hyphens)', (s) => !isText(s.name) || s.name.length > 64 || !SKILL_NAME.test(s.name)],
    ['has no "description"', (s) => !isText(s.description)],
    ['has a "type" other than skill-md or archive', (s) => !SKILL_TYPES.includes(s.type as string)],
    ['has no "url" to fetch it from', (s) => !isText(s.url) || !URL.canParse(s.url, base)],
    ['has no "digest" of the form sha256:<64 hex digits>', (s) => typeof s.digest !== 'string' || !SKILL_DIGEST.test(s.digest)],
  ];
  for (const [words, fault] of faults) {
    const at = first(fault);
    if (at >= 0) problems.push(`skill ${at + 1} ${isObject(skills[at]) ? words : 'is not an object'}`);
  }
  return { problems: [...new Set(problems)], name: null, entries: skills.length };
}

/**
 * One well-known surface as the report shows it: `found` (valid), `invalid` (published, but not what its
 * specification requires), `missing` (4xx, or a 2xx HTML page), `soft-404` (the site's catch-all page, the same
 * as `catchAll`, what a path that cannot exist answered) or `unreachable` (no answer, 5xx).
 * @example assessSurface('mcpServerCard', { url: 'https://s.test/.well-known/mcp/server-card', status: 404, contentType: 'text/html', body: '', truncated: false }, 'https://s.test').status // 'missing'
 */
export function assessSurface(kind: SurfaceKind, file: SurfaceFile, origin: string, catchAll: string | null = null): AgentSurface {
  const base = { url: file.url, httpStatus: file.status, name: null, entries: null, problems: [] as string[] };
  if (file.status === null || file.status >= 500) return { ...base, status: 'unreachable', valid: false };
  if (isSoftNotFound(file, catchAll)) return { ...base, status: 'soft-404', valid: false };
  if (file.status < 200 || file.status > 299 || !file.body || isHtml(file.contentType, file.body)) return { ...base, status: 'missing', valid: false };
  let doc: unknown;
  try {
    doc = JSON.parse(file.body);
  } catch {
    const problems = [file.truncated ? 'is larger than the 64 KB read, so it could not be parsed' : 'is not valid JSON'];
    return { ...base, status: 'invalid', valid: false, problems };
  }
  if (!isObject(doc)) return { ...base, status: 'invalid', valid: false, problems: ['is not a JSON object'] };
  const checked =
    kind === 'apiCatalog'
      ? checkApiCatalog(doc, file.contentType)
      : kind === 'mcpServerCard'
        ? checkMcpServerCard(doc)
        : kind === 'a2aAgentCard'
          ? checkA2aAgentCard(doc)
          : kind === 'oauthAuthorizationServer'
            ? checkOauthServer(doc, origin)
            : kind === 'oauthProtectedResource'
              ? checkProtectedResource(doc, origin)
              : kind === 'agentSkills'
                ? checkAgentSkills(doc, file.url)
                : checkBotAuthDirectory(doc, file.contentType);
  const valid = checked.problems.length === 0;
  return { ...base, status: valid ? 'found' : 'invalid', valid, name: checked.name, entries: checked.entries, problems: checked.problems.slice(0, SURFACE_PROBLEMS_MAX) };
}

/**
 * `site.agentSurfaces` from the page's Link header values and the fetched well-known documents.
 * @example agentSurfaces(['</.well-known/api-catalog>; rel="api-catalog"'], files, 'https://s.test/').linkHeaders[0].rel // 'api-catalog'
 */
export function agentSurfaces(linkValues: readonly string[], files: Readonly<Record<SurfaceKind, SurfaceFile>>, pageUrl: string, catchAll: string | null = null): AgentSurfaces {
  const origin = new URL(pageUrl).origin;
  const surfaces = Object.fromEntries(SURFACE_KINDS.map((k) => [k, assessSurface(k, files[k], origin, catchAll)])) as Record<SurfaceKind, AgentSurface>;
  // The rendered view fills webMcp in (check.ts): the site files are analysed before the rendering ends.
  return { linkHeaders: linkHeaderRelations(linkValues, pageUrl), ...surfaces, aiCatalog: null, webMcp: null };
}
