import { problem, problemResponse } from '@/lib/problems';
import { DIRECTORY_MAX_AGE_SECONDS, SIGNATURES_DIRECTORY_MEDIA_TYPE, SIGNATURES_DIRECTORY_PATH, type BotIdentity } from '@/lib/outbound/web-bot-auth';

// GET /.well-known/http-message-signatures-directory: the public keys our Web Bot Auth signatures verify with
// (draft-ietf-webbotauth-httpsig-protocol). Every signed request's Signature-Agent names this origin, so a site
// fetches this JWKS to check us. Unset key: the service signs nothing, and there is no directory (404).

/**
 * The directory of `identity`'s public key as a signed response, or 404 problem+json when there is none.
 * The response signature covers `@authority;req` of the public origin (APP_URL), where Signature-Agent points:
 * a directory copied to another origin does not verify there.
 * @example await signaturesDirectoryResponse(await processBotIdentity()) // 200 application/http-message-signatures-directory+json
 */
export async function signaturesDirectoryResponse(identity: BotIdentity | null): Promise<Response> {
  if (!identity) return problemResponse(problem('not-found', 'This service signs no requests (WEB_BOT_AUTH_KEY is not set), so it has no key directory.'));
  const body = JSON.stringify({ keys: [identity.publicJwk] });
  const headers = new Headers({ 'Content-Type': SIGNATURES_DIRECTORY_MEDIA_TYPE, 'Cache-Control': `public, max-age=${DIRECTORY_MAX_AGE_SECONDS}` });
  const request = { method: 'GET', url: new URL(SIGNATURES_DIRECTORY_PATH, identity.agentOrigin).href, headers: new Headers() };
  for (const [name, value] of Object.entries(await identity.signDirectory(request, { status: 200, headers }))) headers.set(name, value);
  return new Response(body, { status: 200, headers });
}
