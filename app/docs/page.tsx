import Link from 'next/link';
import { getConfig } from '@/lib/config';
import { READINESS_LIMITS, readinessCheck } from '@/lib/checks/readiness/entry';
import { checks } from '@/lib/checks/registry';
import { PLANS } from '@/lib/credits/plans';
import { PRICE_CENTS, PRICE_USD, PRICE_USDC_UNITS, USDC_DECIMALS, formatUsd } from '@/lib/price';
import { RESERVATION_HOLD_MS } from '@/lib/credits/ledger';
import { IDEMPOTENCY_KEY_PATTERN } from '@/lib/paid-call/pipeline';
import { REPLAY_TTL_MS } from '@/lib/replay-record';
import { MAX_URL_LENGTH } from '@/lib/checks/visibility/target-url';
import { PAGE_MAX_BYTES } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { VISIBILITY_LIMITS } from '@/lib/checks/visibility/rubric';
import { BASE_USDC_ADDRESS } from '@/lib/config';
import { REVEAL_TTL_MS } from '@/lib/billing/records';
import { RENEWAL_GRACE_MS, HANDLED_EVENT_TYPES } from '@/lib/billing/webhook';
import { endpointDocs } from '@/lib/docs/reference';
import { EndpointSection } from '@/components/docs/EndpointSection';
import { CrawlerTable, ProblemTable, ReadinessRubric, VisibilityRubric } from '@/components/docs/Rubrics';
import { CodeBlock } from '@/components/CodeBlock';
import { LIST_PAID_SERVICES } from '@/lib/mcp/tools';
import { PAYMENT_REQUIRED_CODE } from '@/lib/mcp/payment';
import { pageMetadata } from '@/lib/site/metadata';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

export const generateMetadata = () =>
  pageMetadata({
    path: '/docs',
    title: 'Documentation',
    description: 'How to call the two paid checks: quick start, paying with MPP, x402 or a credits key, every endpoint, MCP tools, errors and both rubrics.',
  });
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

export default async function Docs() {
  const config = getConfig();
  const base = config.APP_URL.replace(/\/$/, '');
  const endpoints = await endpointDocs(base);
  const body = JSON.stringify(readinessCheck.example);
  const hours = (ms: number) => ms / 3_600_000;

  const toc: Array<{ id: string; label: string; children?: Array<{ id: string; label: string }> }> = [
    { id: 'quick-start', label: 'Quick start' },
    {
      id: 'paying',
      label: 'Paying',
      children: [
        { id: 'quick-start-prepaid', label: 'Prepaid credits key' },
        { id: 'quick-start-mpp-card', label: 'MPP, card' },
        { id: 'quick-start-mpp-evm', label: 'MPP, USDC on Base' },
        { id: 'quick-start-x402', label: 'x402 v2' },
      ],
    },
    { id: 'quick-start-mcp', label: 'MCP' },
    { id: 'api', label: 'API reference', children: endpoints.map((d) => ({ id: d.anchor, label: `${d.method} ${d.path.split('?')[0]}` })) },
    { id: 'errors', label: 'Errors' },
    { id: 'readiness-rubric', label: 'Readiness rubric' },
    { id: 'visibility-rubric', label: 'Visibility rubric', children: [{ id: 'crawlers', label: 'Crawlers' }] },
    { id: 'limits', label: 'Limits' },
    { id: 'not-seen', label: 'What the checks do not see' },
    { id: 'billing', label: 'Purchases, renewals and refunds' },
  ];

  // Every example names the service as $BASE, set once in the quick start, so a command can be copied as is.
  return (
    <>
      <h1>Documentation</h1>
      <p className="lead">
        Two paid checks over HTTP, {PRICE_USD} USD per fulfilled request: pay per call over HTTP 402 (MPP card, MPP evm, x402 v2), or
        spend a prepaid credits key. Every error is <code>application/problem+json</code>. People can also{' '}
        <Link href="/check">run both checks in the browser</Link>.
      </p>
      <div className="docs-layout">
      <nav className="docs-toc" aria-labelledby="toc-title">
        <h2 id="toc-title">On this page</h2>
        <ol>
          {toc.map((item) => (
            <li key={item.id}>
              <a href={`#${item.id}`}>{item.label}</a>
              {item.children ? (
                <ol>
                  {item.children.map((c) => (
                    <li key={c.id}>
                      <a href={`#${c.id}`}>{c.label}</a>
                    </li>
                  ))}
                </ol>
              ) : null}
            </li>
          ))}
        </ol>
      </nav>
      <div className="docs-body">

      <h2 id="quick-start">Quick start</h2>
      <p>
        Set <code>BASE</code> to this service once; every example on this page uses it. Send the same request with an{' '}
        <code>Idempotency-Key</code> to retry safely: the stored result comes back with <code>Idempotent-Replayed: true</code> and no
        second charge.
      </p>
      <CodeBlock label="Set BASE">{`export BASE=${base}`}</CodeBlock>

      <h2 id="paying">Paying</h2>
      <p>
        Every paid endpoint takes any of four ways to pay. Without one it answers 402 with the challenges of each rail, so a client can pick.
      </p>
      <h3 id="quick-start-prepaid">Prepaid credits key</h3>
      <p>
        <Link href="/pricing">Buy a plan</Link>; the key is shown once after payment. Each fulfilled request spends one call, and the answer
        says how many are left.
      </p>
      <CodeBlock label="Prepaid key example">{`export KEY=pac_live_…
curl -s $BASE/api/agent/credits -H "Authorization: Bearer $KEY"     # calls left
curl -s $BASE${readinessCheck.path} \\
  -H "Authorization: Bearer $KEY" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: order-0001" \\
  -d '${body}'`}</CodeBlock>

      <h3 id="quick-start-mpp-card">MPP, card</h3>
      <p>
        An unpaid request answers 402 with <code>WWW-Authenticate: Payment</code> challenges. The card challenge (method{' '}
        <code>stripe</code>, amount {PRICE_CENTS} cents, currency usd) is paid with a shared payment token from the card processor; the client
        retries with <code>Authorization: Payment &lt;credential&gt;</code> and gets <code>Payment-Receipt</code>. With the mppx CLI:
      </p>
      <CodeBlock label="MPP card example">{`mppx $BASE${readinessCheck.path} -J '${body}' --protocol mpp --currency usd -M paymentMethod=pm_card_visa`}</CodeBlock>

      <h3 id="quick-start-mpp-evm">MPP, USDC on Base (evm)</h3>
      <p>
        The evm challenge asks for {String(PRICE_USDC_UNITS)} units ({PRICE_USD} USDC, {USDC_DECIMALS} decimals) of <code>{BASE_USDC_ADDRESS}</code> on chain 8453. mppx signs
        the transfer authorization and retries with <code>Authorization: Payment</code>.
      </p>
      <CodeBlock label="MPP evm example">{`export MPPX_PRIVATE_KEY=0x…   # a wallet holding USDC on Base
mppx $BASE${readinessCheck.path} -J '${body}' --protocol mpp --currency ${BASE_USDC_ADDRESS}`}</CodeBlock>

      <h3 id="quick-start-x402">x402 v2</h3>
      <p>
        The same 402 carries <code>PAYMENT-REQUIRED</code> (base64 JSON, scheme exact, network eip155:8453, maxTimeoutSeconds 300).
        Retry with <code>PAYMENT-SIGNATURE</code> (<code>X-PAYMENT</code> is accepted too); the answer carries{' '}
        <code>PAYMENT-RESPONSE</code>.
      </p>
      <CodeBlock label="x402 example">{`import { wrapFetchWithPayment } from '@x402/fetch';
// client: an x402 client with an exact EVM scheme for your signer (see @x402/fetch)
const pay = wrapFetchWithPayment(fetch, client);
const res = await pay(\`\${process.env.BASE}${readinessCheck.path}\`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'order-0002' },
  body: JSON.stringify(example),
});`}</CodeBlock>

      <h2 id="quick-start-mcp">MCP</h2>
      <p>
        Point an MCP client at <code>$BASE/api/mcp</code> (Streamable HTTP). Tools: {checks().map((o) => o.toolName).join(', ')} and
        the free {LIST_PAID_SERVICES}. An unpaid call answers JSON-RPC error {PAYMENT_REQUIRED_CODE} with the challenge; an MPP client (mppx{' '}
        <code>McpClient</code>) retries with the credential in <code>params._meta</code>. With a prepaid key, send{' '}
        <code>Authorization: Bearer</code> on the HTTP request.
      </p>
      <CodeBlock label="MCP example">{`curl -s $BASE/api/mcp \\
  -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" \\
  -H "Authorization: Bearer $KEY" \\
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${readinessCheck.toolName}","arguments":${body}}}'`}</CodeBlock>

      <h2 id="api">API reference</h2>
      {endpoints.map((doc) => (
        <EndpointSection key={`${doc.method} ${doc.path}`} doc={doc} />
      ))}

      <h2 id="errors">Errors</h2>
      <p>
        Every error is RFC 9457 problem details: <code>type</code> (stable, below), <code>title</code>, <code>status</code>,{' '}
        <code>detail</code>, and for a 400 an <code>errors</code> list of <code>{'{ path, message }'}</code>, one per bad field, with its
        JSON path. A 429 and most 503s carry <code>Retry-After</code>. A 402 also carries the payment challenges.
      </p>
      <ProblemTable />

      <h2 id="readiness-rubric">Readiness rubric</h2>
      <ReadinessRubric />

      <h2 id="visibility-rubric">Visibility rubric</h2>
      <VisibilityRubric />
      <h3 id="crawlers">Crawlers</h3>
      <CrawlerTable />

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
            <tr><td>Readiness: workflow.name</td><td>1-120 characters; evidence at most 5 items of 1-240 characters per capability</td></tr>
            <tr><td>Visibility: url</td><td>1-{MAX_URL_LENGTH} characters; default ports only; IP addresses and internal names refused</td></tr>
            <tr><td>Visibility: page bytes read</td><td>{PAGE_MAX_BYTES / 1024} KB (page.truncated is true past that)</td></tr>
            <tr><td>Crawlers reported</td><td>{CRAWLERS.length}</td></tr>
            <tr><td>x402 maxTimeoutSeconds</td><td>300</td></tr>
            <tr><td>Prepaid plans</td><td>{PLANS.map((p) => `${p.name}: ${formatUsd(p.priceCents)} USD${p.billing === 'monthly' ? ' a month' : ''}, ${p.billing === 'monthly' ? `${p.calls} calls a month` : `${p.calls} calls for ${p.validity}`}`).join('; ')}</td></tr>
            <tr><td>A call held by a request that never finished</td><td>returns to the balance after {RESERVATION_HOLD_MS / 60_000} minutes</td></tr>
            <tr><td>New key shown after purchase</td><td>once; unclaimed, it is destroyed after {hours(REVEAL_TTL_MS)} hour(s)</td></tr>
          </tbody>
        </table>
      </TableWrap>

      <h2 id="not-seen">What the checks do not see</h2>
      <h3>Agent Payment Readiness Assessment</h3>
      <ul>
        {READINESS_LIMITS.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
      <h3>AI Visibility Check</h3>
      <ul>
        {VISIBILITY_LIMITS.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>

      <h2 id="billing">Purchases, renewals and refunds</h2>
      <ul>
        <li>Buying a plan creates a Stripe Checkout Session; the key (new, or the one you top up) is credited when Stripe confirms the payment.</li>
        <li>A top-up names its key only in our own form; the payment processor never sees it.</li>
        <li>
          The monthly plan resets to {PLANS.find((p) => p.id === 'subscription')?.calls} calls when each month is paid (reset, not added). Its calls
          stay usable for {hours(RENEWAL_GRACE_MS)} hours past the period end while the renewal is collected.
        </li>
        <li>After cancellation the calls of the month already paid for stay usable until it ends; nothing renews.</li>
        <li>A refund removes the calls that remain of that purchase; a partial refund removes the same share of its calls.</li>
        <li>Webhook events used: {HANDLED_EVENT_TYPES.join(', ')}. Each event is processed once, in any order.</li>
      </ul>
      </div>
      </div>
    </>
  );
}
