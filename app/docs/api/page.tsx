import { getConfig } from '@/lib/config';
import { PLANS } from '@/lib/credits/plans';
import { PRICE_USD, formatUsd } from '@/lib/price';
import { RESERVATION_HOLD_MS } from '@/lib/credits/ledger';
import { IDEMPOTENCY_KEY_PATTERN } from '@/lib/paid-call/pipeline';
import { checksPerCaller } from '@/lib/paid-call/host-budget';
import { REPLAY_TTL_MS } from '@/lib/payments/replay-record';
import { REVEAL_TTL_MS } from '@/lib/billing/records';
import { endpointDocs } from '@/lib/docs/reference';
import { docsPageMetadata } from '@/lib/site/metadata';
import Link from 'next/link';
import { ProblemTable } from '@/components/docs/ProblemTable';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import { PageContents } from '@/components/docs/PageContents';

export const generateMetadata = () => docsPageMetadata('/docs/api');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

const hours = (ms: number) => ms / 3_600_000;

export default async function DocsApi() {
  const config = getConfig();
  const endpoints = await endpointDocs(config.APP_URL.replace(/\/$/, ''));
  return (
    <>
      <h1>REST reference</h1>
      <p className="lead">
        Every endpoint, generated from the code that serves it. Each has a page of its own with the request, example answers and the
        errors it can answer, and its JSON Schemas one link further. The same document is <a href="/openapi.json">/openapi.json</a>.
      </p>
      <PageContents
        entries={[
          ...endpoints.map((d) => ({ anchor: d.anchor, label: <code>{d.method} {d.path.split('?')[0]}</code> })),
          { anchor: 'errors', label: 'Errors' },
          { anchor: 'limits', label: 'Limits' },
        ]}
      />

      <h2 id="api">Endpoints</h2>
      <TableWrap label="Endpoints">
        <table>
          <caption>Endpoints, each linking to its page</caption>
          <ColumnHeads names={['Endpoint', 'What it does', 'Price']} />
          <tbody>
            {endpoints.map((doc) => (
              // The row keeps the anchor the single reference page gave the endpoint, so links to it still land here.
              <tr key={`${doc.method} ${doc.path}`} id={doc.anchor}>
                <th scope="row">
                  <Link href={`/docs/api/${doc.anchor}`}>
                    <code>{doc.method} {doc.path.split('?')[0]}</code>
                  </Link>
                </th>
                <td>{doc.title}</td>
                <td>{doc.price}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <h2 id="errors">Errors</h2>
      <p>
        Every error is RFC 9457 problem details: <code>type</code> (stable, below), <code>title</code>, <code>status</code>,{' '}
        <code>detail</code>, and for a 400 an <code>errors</code> list of <code>{'{ path, message }'}</code>, one per bad field, with its
        JSON path. A 429 and most 503s carry <code>Retry-After</code>. A 402 also carries the payment challenges.
      </p>
      <ProblemTable />

      <h2 id="limits">Limits</h2>
      <TableWrap label="Limits">
        <table>
          <caption>Limits</caption>
          <ColumnHeads names={['Limit', 'Value']} />
          <tbody>
            <tr><td>Price</td><td>{PRICE_USD} USD per fulfilled request</td></tr>
            <tr><td>Request body</td><td>{config.MAX_BODY_BYTES} bytes</td></tr>
            <tr><td>Idempotency-Key</td><td><code>{IDEMPOTENCY_KEY_PATTERN.source}</code>; results kept {hours(REPLAY_TTL_MS)} hours</td></tr>
            <tr><td>Rate limit</td><td>{config.RATE_LIMIT_PER_IP} requests per client IP and {config.RATE_LIMIT_PER_KEY} per credits key, every {config.RATE_LIMIT_WINDOW_SECONDS} seconds</td></tr>
            <tr><td>Each check&apos;s own input</td><td>its request JSON Schema (on its endpoint&apos;s page), and its rubric on the checks page</td></tr>
            <tr><td>Time an x402 payment may take (<code>maxTimeoutSeconds</code>)</td><td>300 seconds</td></tr>
            <tr><td>Prepaid plans</td><td>{PLANS.map((p) => `${p.name}: ${formatUsd(p.priceCents)} USD${p.billing === 'monthly' ? ' a month' : ''}, ${p.billing === 'monthly' ? `${p.calls} calls a month` : `${p.calls} calls for ${p.validity}`}`).join('; ')}</td></tr>
            <tr><td>Checks of one site</td><td>{config.CHECKS_PER_SITE_PER_MINUTE} a minute whoever asks, at most {checksPerCaller(config.CHECKS_PER_SITE_PER_MINUTE)} of them by one caller (key, paying wallet or address); a check that ends before the site answered is given back and counts against its caller&apos;s {config.RATE_LIMIT_COSTLY_FAILURES} uncharged failures a window instead</td></tr>
            <tr><td>Requests the checks send</td><td>{config.OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE} a minute to any one domain and {config.OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE} to any one address (IPv4, or IPv6 /64), all checks together</td></tr>
            <tr><td>A client that goes away</td><td>before its check sent any request: the check stops, nothing charged; after: the check runs to its end and is charged as if the client had stayed, its answer kept for the Idempotency-Key</td></tr>
            <tr><td>A call held by a request that never finished</td><td>returns to the balance after {RESERVATION_HOLD_MS / 60_000} minutes</td></tr>
            <tr><td>New key shown after purchase</td><td>once; unclaimed, it is destroyed after {hours(REVEAL_TTL_MS)} hour(s)</td></tr>
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
