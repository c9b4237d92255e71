// Web Bot Auth: the service signs the requests it sends under its own user agent, publishes the key directory
// those signatures verify with, and compares a signed page fetch with the same request unsigned. Every signature
// here is checked by an independent RFC 9421 implementation (http-message-signatures), with the public key read
// from the directory this service serves, never by our own code.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createVerifier, httpbis } from 'http-message-signatures';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { BROWSER_USER_AGENT, CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
import { createBotIdentity, type BotIdentity } from '@/lib/outbound/web-bot-auth';
import { parseConfig } from '@/lib/config';
import { safeFetch, userAgent } from '@/lib/outbound/safe-fetch';
import { signaturesDirectoryResponse } from '@/lib/http/signatures-directory';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';
import { goodRoutes, httpsOnly } from './fixture-pages';

const HOSTS = ['site.test', 'www.site.test'];
const APP_URL = 'https://checks.example';
const sites: FixtureSite[] = [];

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

function newKey(): { jwk: crypto.JsonWebKey; pem: string } {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  return { jwk: privateKey.export({ format: 'jwk' }), pem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

/** RFC 7638 thumbprint, computed here from its definition rather than by the code under test. */
function thumbprint(x: string): string {
  return crypto.createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}

/** The directory as our route serves it: the public key an outside verifier would fetch. */
async function directoryOf(identity: BotIdentity) {
  const res = await signaturesDirectoryResponse(identity);
  return { res, body: (await res.json()) as { keys: Array<{ kty: string; crv: string; x: string; kid: string }> } };
}

type Seen = { path: string; ua: string; signatureAgent: string | null; signatureInput: string | null; signature: string | null; verified: boolean | null };

/** Verifies a request the fixture received, with the keys of `directory`, as a site's edge would. */
function requestVerifier(directory: { keys: Array<{ kid: string; x: string }> }) {
  return async (req: IncomingMessage): Promise<boolean | null> => {
    if (!req.headers['signature']) return null;
    const headers = Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
    try {
      return await httpbis.verifyMessage(
        {
          keyLookup: async (params) => {
            const key = directory.keys.find((k) => k.kid === params.keyid);
            if (!key || params.tag !== 'web-bot-auth') return null;
            return { id: key.kid, algs: ['ed25519'], verify: createVerifier(crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' }), 'ed25519') };
          },
          requiredParams: ['created', 'expires', 'keyid', 'nonce', 'tag'],
          requiredFields: ['@authority'],
        },
        { method: req.method!, url: `https://${req.headers.host}${req.url}`, headers },
      );
    } catch {
      return false;
    }
  };
}

/**
 * A site whose every route records what it saw and verifies any signature; `/guide` answers `signedOnly` sites
 * 403 unless the request carries a valid signature.
 */
async function site(directory: { keys: Array<{ kid: string; x: string }> }, signedOnly: boolean) {
  const seen: Seen[] = [];
  const verify = requestVerifier(directory);
  const routes = goodRoutes();
  const watched: Record<string, FixtureRoute> = {};
  for (const [path, route] of Object.entries(routes)) {
    watched[path] = (req: IncomingMessage) => {
      const inner = typeof route === 'function' ? route(req) : route;
      const entry: Seen = {
        path,
        ua: req.headers['user-agent'] ?? '',
        signatureAgent: (req.headers['signature-agent'] as string | undefined) ?? null,
        signatureInput: (req.headers['signature-input'] as string | undefined) ?? null,
        signature: (req.headers['signature'] as string | undefined) ?? null,
        verified: null,
      };
      seen.push(entry);
      const spec: FixtureResponse = { ...inner };
      spec.held = verify(req).then((verified) => {
        entry.verified = verified;
        if (signedOnly && path === '/guide' && verified !== true) Object.assign(spec, { status: 403, body: 'Signed agents only', headers: { 'content-type': 'text/plain' }, redirect: undefined });
      });
      return spec;
    };
  }
  watched['/guide'] = httpsOnly(watched['/guide']);
  const fixture = await startFixtureSite(watched);
  sites.push(fixture);
  return { fixture, seen };
}

describe('the key directory', () => {
  it('serves the public key as a signed JWKS with the draft media type, verified by an independent library', async () => {
    const { jwk } = newKey();
    const identity = await createBotIdentity(JSON.stringify(jwk), APP_URL);
    const { res, body } = await directoryOf(identity);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(body).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: thumbprint(jwk.x!) }] });
    // No private member ever leaves.
    expect(JSON.stringify(body)).not.toContain(jwk.d);

    const input = res.headers.get('signature-input')!;
    const parts = /^binding0=\("@authority";req\);created=(\d+);keyid="([\w-]{43})";alg="ed25519";expires=(\d+);tag="http-message-signatures-directory"$/.exec(input);
    expect(parts).not.toBeNull();
    expect(parts![2]).toBe(thumbprint(jwk.x!));
    expect(Number(parts![3]) - Number(parts![1])).toBe(86400);
    const request = { method: 'GET', url: `${APP_URL}/.well-known/http-message-signatures-directory`, headers: {} };
    const response = { status: 200, headers: { 'signature-input': input, signature: res.headers.get('signature')! } };
    const keyLookup = async () => ({ id: body.keys[0].kid, algs: ['ed25519'], verify: createVerifier(crypto.createPublicKey({ key: body.keys[0], format: 'jwk' }), 'ed25519') });
    expect(await httpbis.verifyMessage({ keyLookup }, response, request)).toBe(true);
    // Bound to our origin: the same response served from another one does not verify.
    expect(await httpbis.verifyMessage({ keyLookup }, response, { ...request, url: 'https://elsewhere.example/.well-known/http-message-signatures-directory' })).toBe(false);
  });

  it('answers 404 problem+json when no key is set', async () => {
    const res = await signaturesDirectoryResponse(null);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { type: string }).type).toMatch(/not-found$/);
  });

  it('takes the key as a JWK or a PKCS#8 PEM, and names the same key id either way', async () => {
    const { jwk, pem } = newKey();
    const fromJwk = await createBotIdentity(JSON.stringify(jwk), APP_URL);
    const fromPem = await createBotIdentity(pem, APP_URL);
    expect(fromPem.keyId).toBe(fromJwk.keyId);
    expect(fromJwk.keyId).toBe(thumbprint(jwk.x!));
  });

  it('refuses a key that is not an Ed25519 private key at startup, without quoting it', () => {
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const env = { NODE_ENV: 'test', CREDITS_KEY_SECRET: 'x'.repeat(32) };
    expect(() => parseConfig({ ...env, WEB_BOT_AUTH_KEY: rsa })).toThrow('WEB_BOT_AUTH_KEY: must be an Ed25519 key (Web Bot Auth verifiers such as Cloudflare accept only Ed25519), not rsa');
    let message = '';
    try {
      parseConfig({ ...env, WEB_BOT_AUTH_KEY: 'secret-looking-garbage' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('Invalid configuration:\n  WEB_BOT_AUTH_KEY: must be an Ed25519 private key, as a JWK (with "d") or a PKCS#8 PEM');
    const { pem } = newKey();
    expect(parseConfig({ ...env, WEB_BOT_AUTH_KEY: pem.replace(/\n/g, '\\n') }).WEB_BOT_AUTH_KEY).toBe(pem.replace(/\n/g, '\\n'));
    expect(() => parseConfig({ ...env, NODE_ENV: 'production', APP_URL: 'http://checks.example', WEB_BOT_AUTH_KEY: pem })).toThrow('WEB_BOT_AUTH_KEY: set, but APP_URL is not https');
  });
});

describe('signed requests', () => {
  it('a request under our own user agent carries a Web Bot Auth signature that verifies; one as a crawler carries none', async () => {
    const { jwk } = newKey();
    const identity = await createBotIdentity(JSON.stringify(jwk), APP_URL);
    const { body: directory } = await directoryOf(identity);
    const { fixture, seen } = await site(directory, false);
    const hostMap = fixture.hostMap(HOSTS);
    await safeFetch(new URL('https://site.test/robots.txt'), { hostMap, signer: identity });
    await safeFetch(new URL('https://site.test/robots.txt'), { hostMap, signer: identity, userAgent: CRAWLERS.find((c) => c.token === 'GPTBot')!.userAgent! });
    expect(seen).toHaveLength(2);
    const [ours, crawler] = seen;
    expect(ours.ua).toBe(userAgent());
    expect(ours.verified).toBe(true);
    expect(ours.signatureAgent).toBe('sig1="https://checks.example"');
    const input = /^sig1=\("@authority" "signature-agent";key="sig1"\);created=(\d+);expires=(\d+);keyid="([\w-]{43})";alg="ed25519";nonce="([^"]+)";tag="web-bot-auth"$/.exec(ours.signatureInput!);
    expect(input).not.toBeNull();
    expect(Number(input![2]) - Number(input![1])).toBe(60);
    expect(input![3]).toBe(thumbprint(jwk.x!));
    expect(ours.signature).toMatch(/^sig1=:[A-Za-z0-9+/]+=*:$/);
    expect(crawler).toMatchObject({ signatureAgent: null, signatureInput: null, signature: null, verified: null });
  });

  it('a signature verifies only with our key: another key in the directory does not verify it', async () => {
    const identity = await createBotIdentity(JSON.stringify(newKey().jwk), APP_URL);
    const other = await createBotIdentity(JSON.stringify(newKey().jwk), APP_URL);
    const { body: otherDirectory } = await directoryOf(other);
    const { fixture, seen } = await site({ keys: [{ ...otherDirectory.keys[0], kid: identity.keyId }] }, false);
    await safeFetch(new URL('https://site.test/robots.txt'), { hostMap: fixture.hostMap(HOSTS), signer: identity });
    expect(seen.map((s) => s.verified)).toEqual([false]);
  });
});

describe('site.access.signedAgent', () => {
  it('a site that answers signed requests 200 and unsigned ones 403 differs; only crawler and browser probes go unsigned, and one extra request is sent', async () => {
    const identity = await createBotIdentity(JSON.stringify(newKey().jwk), APP_URL);
    const { body: directory } = await directoryOf(identity);
    const { fixture, seen } = await site(directory, true);
    const { report } = await checkVisibility('https://site.test/guide', { hostMap: fixture.hostMap(HOSTS), signer: identity });
    expect(report.status).toBe(200);
    expect(report.site.access.signedAgent).toEqual({
      signed: true,
      signedStatus: 200,
      unsignedStatus: 403,
      differs: true,
      words: 'The site treats signed agents differently: signed with Web Bot Auth the page answered 200, the same request unsigned 403.',
    });
    const ours = userAgent();
    const otherAgents = new Set([BROWSER_USER_AGENT, ...PROBED_CRAWLERS.map((c) => c.userAgent)]);
    // Every request under another user agent went unsigned (the site refused each of those for /guide).
    const impersonated = seen.filter((s) => otherAgents.has(s.ua));
    expect(impersonated).toHaveLength(PROBED_CRAWLERS.length + 1);
    for (const s of impersonated) expect(s).toMatchObject({ signatureAgent: null, signatureInput: null, signature: null });
    // Ours: every request signed and verified, but for exactly one unsigned repeat of the page.
    const own = seen.filter((s) => s.ua === ours);
    expect(own.filter((s) => s.signature === null).map((s) => s.path)).toEqual(['/guide']);
    expect(own.filter((s) => s.signature !== null).every((s) => s.verified === true)).toBe(true);
    expect(seen.filter((s) => !otherAgents.has(s.ua) && s.ua !== ours)).toEqual([]);
  });

  it('a site that treats both alike does not differ', async () => {
    const identity = await createBotIdentity(JSON.stringify(newKey().jwk), APP_URL);
    const { body: directory } = await directoryOf(identity);
    const { fixture } = await site(directory, false);
    const { report } = await checkVisibility('https://site.test/guide', { hostMap: fixture.hostMap(HOSTS), signer: identity });
    expect(report.site.access.signedAgent).toEqual({
      signed: true,
      signedStatus: 200,
      unsignedStatus: 200,
      differs: false,
      words: 'No difference seen: the page answered 200 both signed with Web Bot Auth and unsigned.',
    });
  });

  it('without a key nothing is signed, nothing extra is sent, and the report says so', async () => {
    const identity = await createBotIdentity(JSON.stringify(newKey().jwk), APP_URL);
    const { body: directory } = await directoryOf(identity);
    const { fixture, seen } = await site(directory, false);
    const { report } = await checkVisibility('https://site.test/guide', { hostMap: fixture.hostMap(HOSTS), signer: null });
    expect(report.site.access.signedAgent).toEqual({
      signed: false,
      signedStatus: null,
      unsignedStatus: null,
      differs: null,
      words: 'Not compared: this service has no Web Bot Auth key set up, so its requests were not signed.',
    });
    expect(seen.filter((s) => s.signature !== null || s.signatureInput !== null || s.signatureAgent !== null)).toEqual([]);
    // Our own user agent fetched /guide three times (the page, its Markdown variant, the llms.txt link to it): no repeat.
    expect(seen.filter((s) => s.ua === userAgent() && s.path === '/guide')).toHaveLength(3);
  });
});
