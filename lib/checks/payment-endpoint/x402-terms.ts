import { isDeepStrictEqual } from 'node:util';
import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import { isAddress } from 'viem';
import { field, type ProbeContext, type ProbeItem } from './context';
import { judged, unpaidRequest } from './judge';
import { knownAssets } from './price';
import type { Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// x402's terms as an x402 client reads them: PAYMENT-REQUIRED decoded and parsed with @x402/core's own v2 schema,
// then each accepts entry held to what a client needs to pay it without guessing: a CAIP-2 network, a stablecoin
// x402 knows on it (its contract, and the EIP-712 domain an EIP-3009 signature is made over), an integer amount,
// a payTo it can send to and a time limit. Node's HTTP clients refuse an answer whose header block passes 16 KiB.

/** Node's default `--max-http-header-size`: the whole header block of an answer. */
const NODE_HEADER_LIMIT = 16 * 1024;

const RERUN = rerun('the x402 terms item passes with no finding');
const DECODE = 'Decode the header: `curl -si -X POST <url> | grep -i payment-required | cut -d" " -f2 | base64 -d | jq`.';

const finding = (f: Omit<FindingSpec, 'verify'> & { verify?: string[] }): FindingSpec => ({ ...f, verify: f.verify ?? [DECODE, RERUN] });

const FINDINGS = {
  'x402-header-undecodable': finding({
    title: 'PAYMENT-REQUIRED is not base64-encoded JSON',
    severity: 'high',
    points: 15,
    why: 'An x402 client decodes the header before anything else; one it cannot decode is a 402 it cannot pay.',
    fix: 'Send PAYMENT-REQUIRED as the standard base64 encoding of the PaymentRequired JSON (the x402 SDK\'s encodePaymentRequiredHeader does this).',
    references: [SOURCES.x402Http],
  }),
  'x402-schema-invalid': finding({
    title: 'PAYMENT-REQUIRED is not a valid x402 v2 PaymentRequired',
    severity: 'high',
    points: 15,
    why: "x402 v2 clients parse the terms with the protocol's schema (x402Version 2, resource, accepts); terms that fail it are dropped, and the agent sees no way to pay.",
    fix: 'Build the terms with the official x402 resource server (or @x402/core\'s types) so that x402Version is 2, resource.url is set and every accepts entry has scheme, network, amount, asset, payTo and maxTimeoutSeconds.',
    references: [SOURCES.x402, SOURCES.x402Http],
  }),
  'x402-network-not-caip2': finding({
    title: 'An accepts entry names its network in a form other than CAIP-2',
    severity: 'high',
    points: 10,
    why: 'v2 clients match the network to a signer by its CAIP-2 id (eip155:8453); a v1 name such as "base" matches none.',
    fix: 'Name each network by its CAIP-2 id: eip155:<chain id> for EVM chains.',
    references: [SOURCES.caip2, SOURCES.x402],
  }),
  'x402-asset-unknown': finding({
    title: "An accepts entry's asset is not the stablecoin x402 knows on that network",
    severity: 'high',
    points: 10,
    why: 'An agent pays the contract the terms name; a contract that is not the network\'s USDC (a typo, another chain\'s address) is money sent to the wrong token, or a payment its wallet refuses.',
    fix: "Set asset to the network's USDC contract (Base 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913, Base Sepolia 0x036CbD53842c5426634e7929541eC2318f3dCF7e), as @x402/evm's defaults have it.",
    references: [SOURCES.x402ExactEvm],
  }),
  'x402-amount-invalid': finding({
    title: "An accepts entry's amount is not a positive integer of base units",
    severity: 'high',
    points: 10,
    why: 'The amount is signed as is, in the token\'s smallest unit; a decimal, a dollar string or zero cannot be signed for what the seller means.',
    fix: 'State amount as a string of the base units (USDC has 6 decimals: "1000000" is 1 USDC).',
    references: [SOURCES.x402],
  }),
  'x402-payto-invalid': finding({
    title: "An accepts entry's payTo is not an address",
    severity: 'high',
    points: 10,
    why: 'payTo is where the transfer goes; a value that is not an address of the network cannot be paid.',
    fix: 'Set payTo to the checksummed 0x address that receives the payments.',
    references: [SOURCES.x402, SOURCES.x402ExactEvm],
  }),
  'x402-timeout-invalid': finding({
    title: 'An accepts entry has no usable maxTimeoutSeconds',
    severity: 'medium',
    points: 5,
    why: 'A client sets its authorization\'s validity from maxTimeoutSeconds; without a positive whole number of seconds it guesses, and a settlement may fail as expired.',
    fix: 'Set maxTimeoutSeconds to a positive integer (e.g. 300).',
    references: [SOURCES.x402],
  }),
  'x402-eip712-domain': finding({
    title: "An accepts entry's extra.name / extra.version is missing or not the token's EIP-712 domain",
    severity: 'high',
    points: 10,
    why: 'An EIP-3009 authorization is signed over the token\'s EIP-712 domain (name, version); a wrong or missing one gives a signature the token contract rejects, so settlement fails after the agent paid.',
    fix: "Set extra.name and extra.version to the token contract's own domain (Base USDC: \"USD Coin\" / \"2\"; Base Sepolia USDC: \"USDC\" / \"2\").",
    references: [SOURCES.x402ExactEvm, { title: 'EIP-3009: transfer with authorization', url: 'https://eips.ethereum.org/EIPS/eip-3009' }],
  }),
  'x402-resource-mismatch': finding({
    title: 'resource.url is not an absolute URL of the resource asked for',
    severity: 'medium',
    points: 5,
    why: 'The payment is bound to resource.url, and directories list the resource under it; a relative URL or another resource\'s makes the payment and the listing point elsewhere.',
    fix: 'Set resource.url to the absolute URL of the paid resource, as clients call it (behind a proxy: the public origin, not the internal one).',
    references: [SOURCES.x402],
  }),
  'x402-header-too-large': finding({
    title: "The 402's headers pass Node's 16 KiB limit",
    severity: 'high',
    points: 10,
    why: "Node's HTTP clients (fetch, undici, axios) refuse an answer whose header block passes 16 KiB by default: an agent on Node sees a network error, not terms.",
    fix: 'Keep the 402\'s headers under 16 KiB: cut the bazaar output example and schema, move long descriptions out of PAYMENT-REQUIRED.',
    verify: ['Count the header bytes: `curl -s -D - -o /dev/null -X POST <url> | wc -c` stays under 16384.', RERUN],
    references: [SOURCES.x402Http, { title: 'Node.js http.maxHeaderSize', url: 'https://nodejs.org/api/http.html#httpmaxheadersize' }],
  }),
  'x402-body-mirror-differs': finding({
    title: "The 402 body's PaymentRequired differs from PAYMENT-REQUIRED",
    severity: 'medium',
    points: 3,
    why: 'Clients read either copy; two copies that disagree make two agents pay different terms.',
    fix: 'Write the body from the same PaymentRequired the header encodes, or leave the body out.',
    references: [SOURCES.x402Http],
  }),
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof FINDINGS;

const PASS = 'PAYMENT-REQUIRED is a valid x402 v2 PaymentRequired and every accepts entry can be paid as stated.';

const x402TermsSpec: ItemSpec = {
  id: 'x402-terms',
  title: 'x402 terms',
  points: 15,
  verifies: "PAYMENT-REQUIRED decodes to a valid x402 v2 PaymentRequired whose every accepts entry can be paid: CAIP-2 network, that network's USDC, an integer amount, a payTo address, maxTimeoutSeconds, EIP-712 name and version, the same resource; under 16 KB; any body mirror equal.",
  findings: FINDINGS,
};

/** CAIP-2's own grammar: a namespace of 3–8 and a reference of 1–32 characters. */
const CAIP2_PATTERN = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

/** Bytes of an answer's header block as Node counts it (name: value CRLF per line, the status line aside). */
function headerBlockBytes(headers: ReadonlyArray<[string, string]>): number {
  return headers.reduce((n, [name, value]) => n + Buffer.byteLength(name) + Buffer.byteLength(value) + 4, 0);
}

/** The faults of one accepts entry, each with the field it is about. */
function entryFaults(entry: unknown, i: number): Array<{ id: FindingId; observed: string }> {
  const at = `accepts[${i}]`;
  const faults: Array<{ id: FindingId; observed: string }> = [];
  const network = field(entry, 'network');
  const asset = field(entry, 'asset');
  const amount = field(entry, 'amount');
  const payTo = field(entry, 'payTo');
  const timeout = field(entry, 'maxTimeoutSeconds');
  const extra = field(entry, 'extra');
  if (typeof network !== 'string' || !CAIP2_PATTERN.test(network)) faults.push({ id: 'x402-network-not-caip2', observed: `${at}.network is ${JSON.stringify(network)}` });
  if (typeof amount !== 'string' || !/^[1-9]\d*$/.test(amount)) faults.push({ id: 'x402-amount-invalid', observed: `${at}.amount is ${JSON.stringify(amount)}` });
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) faults.push({ id: 'x402-timeout-invalid', observed: `${at}.maxTimeoutSeconds is ${JSON.stringify(timeout)}` });
  const evm = typeof network === 'string' && network.startsWith('eip155:');
  if (evm ? typeof payTo !== 'string' || !isAddress(payTo, { strict: false }) : typeof payTo !== 'string' || payTo.length === 0) {
    faults.push({ id: 'x402-payto-invalid', observed: `${at}.payTo is ${JSON.stringify(payTo)}` });
  }
  const known = typeof network === 'string' ? knownAssets(network) : null;
  if (known) {
    const match = typeof asset === 'string' ? known.find((a) => a.asset.toLowerCase() === asset.toLowerCase()) : undefined;
    if (!match) {
      faults.push({ id: 'x402-asset-unknown', observed: `${at}.asset is ${JSON.stringify(asset)}; on ${String(network)} x402 knows ${known.map((a) => `${a.symbol} ${a.asset}`).join(', ')}` });
    } else if (match.assetTransferMethod !== 'permit2' || match.supportsEip2612) {
      const name = field(extra, 'name');
      const version = field(extra, 'version');
      if (name !== match.name || version !== match.version) {
        faults.push({ id: 'x402-eip712-domain', observed: `${at}.extra has name ${JSON.stringify(name)}, version ${JSON.stringify(version)}; ${match.symbol} on ${String(network)} signs as name "${match.name}", version "${match.version}"` });
      }
    }
  } else if (evm && (typeof field(extra, 'name') !== 'string' || typeof field(extra, 'version') !== 'string')) {
    faults.push({ id: 'x402-eip712-domain', observed: `${at}.extra has no name and version (${JSON.stringify(extra ?? null)})` });
  }
  return faults;
}

/** The same resource: same origin and path (a query or fragment aside). */
function sameResource(stated: unknown, asked: URL): { ok: boolean; observed: string } {
  if (typeof stated !== 'string') return { ok: false, observed: `resource.url is ${JSON.stringify(stated)}` };
  let url: URL;
  try {
    url = new URL(stated);
  } catch {
    return { ok: false, observed: `resource.url "${stated}" is not an absolute URL` };
  }
  const ok = url.origin === asked.origin && url.pathname.replace(/\/$/, '') === asked.pathname.replace(/\/$/, '');
  return { ok, observed: `resource.url is ${url.href}; the check asked ${asked.href}` };
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  const { x402 } = ctx.terms;
  const request = unpaidRequest(ctx);
  const status = ctx.unpaidResponse?.status ?? null;
  if (x402.header === null) {
    return { state: 'not-applicable', why: 'The unpaid answer carries no PAYMENT-REQUIRED header: the endpoint does not offer x402.', evidence: [{ request, status, note: 'no PAYMENT-REQUIRED header' }], faults: [] };
  }
  const faults: Fault[] = [];
  const headerBytes = headerBlockBytes(ctx.unpaidResponse?.headers ?? []);
  const paymentRequiredBytes = Buffer.byteLength(x402.header);
  const sizes = { paymentRequiredBytes, headerBlockBytes: headerBytes, limit: NODE_HEADER_LIMIT };
  if (headerBytes >= NODE_HEADER_LIMIT) faults.push({ id: 'x402-header-too-large', observed: `the 402's header block is ${headerBytes} bytes (PAYMENT-REQUIRED ${paymentRequiredBytes}); Node refuses ${NODE_HEADER_LIMIT} and more` });
  if (x402.decoded === null) {
    faults.push({ id: 'x402-header-undecodable', observed: x402.error ?? 'PAYMENT-REQUIRED did not decode' });
    return judged(faults, FINDINGS, '', [{ request, status, answer: { paymentRequired: x402.header.slice(0, 200), ...sizes } }]);
  }
  const parsed = PaymentRequiredV2Schema.safeParse(x402.decoded);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    faults.push({ id: 'x402-schema-invalid', observed: `x402Version ${JSON.stringify(field(x402.decoded, 'x402Version'))}; ${issues.join('; ')}` });
  }
  const accepts = field(x402.decoded, 'accepts');
  // A v1 PaymentRequired is one fault (the version), not one per v1 field a v2 client would miss.
  const entries = Array.isArray(accepts) && field(x402.decoded, 'x402Version') === 2 ? accepts : [];
  const byId = new Map<FindingId, string[]>();
  for (const [i, entry] of entries.entries()) for (const f of entryFaults(entry, i)) byId.set(f.id, [...(byId.get(f.id) ?? []), f.observed]);
  for (const [id, observed] of byId) faults.push({ id, observed: observed.join('; ') });
  const resource = sameResource(field(field(x402.decoded, 'resource'), 'url'), ctx.url);
  if (!resource.ok) faults.push({ id: 'x402-resource-mismatch', observed: resource.observed });
  if (x402.bodyMirror !== null && !isDeepStrictEqual(x402.bodyMirror, x402.decoded)) {
    faults.push({ id: 'x402-body-mirror-differs', observed: `the body's PaymentRequired (x402Version ${JSON.stringify(field(x402.bodyMirror, 'x402Version'))}) is not the header's` });
  }
  const extensions = field(x402.decoded, 'extensions');
  return judged(faults, FINDINGS, PASS, [
    {
      request,
      status,
      answer: {
        paymentRequired: {
          x402Version: field(x402.decoded, 'x402Version'),
          resource: field(x402.decoded, 'resource'),
          accepts: Array.isArray(accepts) ? accepts : accepts ?? null,
          extensions: extensions && typeof extensions === 'object' ? Object.keys(extensions) : [],
        },
        bodyMirror: x402.bodyMirror !== null,
        ...sizes,
      },
    },
  ]);
}

export const x402Terms: ProbeItem = { spec: x402TermsSpec, probe };
