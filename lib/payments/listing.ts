// Whether the directories list our resources, as the facilitator tells the seller. An x402 facilitator that
// runs a directory (the x402 Bazaar) answers /verify and /settle with an EXTENSION-RESPONSES header: base64 of
// a JSON object keyed by extension, here `bazaar: { status: 'success' | 'processing' | 'rejected',
// rejectedReason? }`. It is meant for the seller only (never forwarded to a payer), so this is the one place
// an operator can learn whether a resource is listed, and why not. We read it as @x402/core's own facilitator
// client does: from the header alone (its response schemas drop any `extensionResponses` in the JSON body), and
// a header that does not decode to a JSON object is ignored, as if absent.
//
// The latest status per (resource, facilitator) is kept as a small store record, shown by
// `npm run ledger -- listing` and as the pac_directory_listing gauge. A change is logged once, however many
// calls repeat it. Nothing here may fail a payment: a store that does not answer only loses the observation
// (the store wrapper counts its error in pac_store_errors_total).
import { safeBase64Decode } from '@x402/core/utils';
import { z } from 'zod';
import { sha256Hex } from '@/lib/canonical-json';
import { metrics } from '@/lib/metrics';
import type { Store } from '@/lib/store';

/**
 * What a facilitator says of a resource's listing: the three statuses of x402's bazaar extension, and `none`
 * for an EXTENSION-RESPONSES without a `bazaar` entry (the facilitator answers for extensions, but did not
 * consider listing this payment: typically because the payment it was sent carried no `resource` and
 * `extensions` for it to list).
 */
const LISTING_STATUSES = ['success', 'processing', 'rejected', 'none'] as const;
type ListingStatus = (typeof LISTING_STATUSES)[number];

/** The last word of one facilitator on one resource. */
export interface DirectoryListing {
  resource: string;
  /** The facilitator's URL, without credentials or query. */
  facilitator: string;
  status: ListingStatus;
  /** The facilitator's `rejectedReason` (cut to REASON_MAX characters), or null. */
  reason: string | null;
  /** When this status was last heard (refreshed at most once per REFRESH_MS while it does not change). */
  seenAt: number;
  /** The answer that carried it. */
  via: 'verify' | 'settle';
}

/** Keeps what the facilitator says of each resource's listing (see directoryListings). */
export interface DirectoryListings {
  /** Records the EXTENSION-RESPONSES header of one /verify or /settle answer; resolves once recorded, never rejects. */
  heard(header: string | undefined, about: { resource: string; facilitator: string; via: 'verify' | 'settle' }): Promise<void>;
}

const RECORD_PREFIX = 'directory-listing:';
/** A resource nobody paid for in this long has dropped out of the directories anyway (CDP's Bazaar: 30 days). */
const RECORD_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** An unchanged status is written again at most this often, so a busy resource costs no store write per call. */
const REFRESH_MS = 60_000;
const REASON_MAX = 300;

const bazaarResponse = z.object({ status: z.enum(['success', 'processing', 'rejected']), rejectedReason: z.string().optional() });

/**
 * The listing status an EXTENSION-RESPONSES header value says, or null for no header or one that cannot be read.
 * @example listingOfHeader(btoa('{"bazaar":{"status":"rejected","rejectedReason":"no input schema"}}')) // { status: 'rejected', reason: 'no input schema' }
 */
function listingOfHeader(header: string | undefined): { status: ListingStatus; reason: string | null } | null {
  if (!header) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(safeBase64Decode(header.trim()));
  } catch {
    return null;
  }
  if (!decoded || typeof decoded !== 'object' || Array.isArray(decoded)) return null;
  if (!('bazaar' in decoded)) return { status: 'none', reason: null };
  const bazaar = bazaarResponse.safeParse((decoded as { bazaar: unknown }).bazaar);
  if (!bazaar.success) return null;
  const reason = bazaar.data.status === 'rejected' ? (bazaar.data.rejectedReason?.slice(0, REASON_MAX) ?? null) : null;
  return { status: bazaar.data.status, reason };
}

/**
 * The facilitator's URL as it is shown and labelled: scheme, host and path, never a password or query (an API key).
 * @example facilitatorName('https://user:pw@x402.example/facilitator/?key=k') // 'https://x402.example/facilitator'
 */
export function facilitatorName(url: string): string {
  const parsed = new URL(url);
  let path = parsed.pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  return `${parsed.origin}${path}`;
}

/**
 * Keeps, in `store`, what facilitators say of our listings; logs each change (with the reason of a rejection) once.
 * @example const directory = directoryListings(store, logEvent); createPaymentRails(config, { directory })
 */
export function directoryListings(store: Store, log: (event: Record<string, unknown>) => void): DirectoryListings {
  // What this process last wrote or read per (facilitator, resource): a repeat then costs nothing, and a change
  // is told apart from a repeat without a read. Seeded from the store on first sight, so a restart (or another
  // instance) does not log again what was already logged.
  const known = new Map<string, DirectoryListing | null>();
  // One observation at a time per (facilitator, resource), so two concurrent calls cannot both log one change.
  const queues = new Map<string, Promise<void>>();

  async function record(name: string, heard: DirectoryListing): Promise<void> {
    let last = known.get(name);
    if (last === undefined) last = parseListing(await store.getRecord(name, heard.seenAt));
    const changed = last === null || last.status !== heard.status || last.reason !== heard.reason;
    if (!changed && heard.seenAt - last!.seenAt < REFRESH_MS) {
      known.set(name, last);
      showInMetrics(last!);
      return;
    }
    await store.setRecord(name, JSON.stringify(heard), heard.seenAt, RECORD_TTL_MS);
    known.set(name, heard);
    showInMetrics(heard);
    if (changed)
      log({ event: 'directory-listing', resource: heard.resource, facilitator: heard.facilitator, status: heard.status, reason: heard.reason, was: last?.status ?? null, via: heard.via });
  }

  return {
    heard(header, about) {
      const listing = listingOfHeader(header);
      if (!listing) return Promise.resolve();
      const heard: DirectoryListing = { ...about, ...listing, seenAt: Date.now() };
      const name = recordName(about.facilitator, about.resource);
      const next = (queues.get(name) ?? Promise.resolve()).then(() => record(name, heard)).catch(() => {});
      queues.set(name, next);
      return next;
    },
  };
}

/**
 * Every listing status kept in `store`, ordered by resource then facilitator.
 * @example for (const l of await listDirectoryListings(store, Date.now())) console.log(l.resource, l.status)
 */
export async function listDirectoryListings(store: Store, now: number): Promise<DirectoryListing[]> {
  const records = await store.listRecords(RECORD_PREFIX, now, 10_000);
  return records
    .map((r) => parseListing(r.value))
    .filter((l): l is DirectoryListing => l !== null)
    .sort((a, b) => a.resource.localeCompare(b.resource) || a.facilitator.localeCompare(b.facilitator));
}

/** Hashed: a resource URL is longer than some stores like a name, and may hold characters they treat specially. */
function recordName(facilitator: string, resource: string): string {
  return `${RECORD_PREFIX}${sha256Hex(`${facilitator}\n${resource}`)}`;
}

function parseListing(raw: string | null): DirectoryListing | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as DirectoryListing;
  } catch {
    return null;
  }
}

// A state set: one series per status, 1 for the status last heard and 0 for the others. Prometheus's idiom for
// an enumeration (OpenMetrics "StateSet"): `pac_directory_listing{status="rejected"} == 1` alerts, and a change
// moves the 1 rather than leaving a stale series behind, as a gauge labelled only with the current status would.
function showInMetrics(listing: DirectoryListing): void {
  try {
    const gauge = metrics().directoryListing;
    for (const status of LISTING_STATUSES)
      gauge.set({ resource: listing.resource, facilitator: listing.facilitator, status }, status === listing.status ? 1 : 0);
  } catch {
    // A metric must never change what a payment answers.
  }
}
