import type { ReactNode } from 'react';
import { CONFIG_VARIABLES, VARIABLES_READ_ELSEWHERE, configDefaults, getConfig } from '@/lib/config';
import { docsExamples } from '@/lib/docs/examples';
import { docsPageMetadata } from '@/lib/site/metadata';
import { CodeBlock } from '@/components/CodeBlock';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import { Wrappable } from '@/components/docs/Wrappable';

export const generateMetadata = () => docsPageMetadata('/docs/self-hosting');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

// What an operator needs to run the service from a clone of its repository. The settings list is made from
// lib/config.ts (its schema's variables with their defaults, and the variables read elsewhere), so it names every
// one the code reads; their full meanings are in the repository's README and docs/CONFIGURATION.md.

const STORES: Array<[string, string, ReactNode]> = [
  ['SQLite (the default)', 'DATA_DIR', <>One process on one host. The file lives in that folder (<code>./.data</code> by default); back it up while serving with SQLite&apos;s online backup.</>],
  ['Redis', 'REDIS_URL', 'Several processes or machines: every key, balance, reservation and idempotency record in one Redis.'],
  ['Vercel KV (Upstash)', 'KV_REST_API_URL', <>Vercel, where SQLite is refused at startup; set <code>KV_REST_API_TOKEN</code> with it.</>],
];


export default function DocsSelfHosting() {
  const examples = docsExamples(getConfig().APP_URL);
  const defaults = configDefaults();
  const elsewhere = Object.entries(VARIABLES_READ_ELSEWHERE);
  return (
    <>
      <h1>Self-hosting</h1>
      <p className="lead">
        The service is one Next.js application with its store beside it. These are the pieces an operator touches; the repository&apos;s{' '}
        <code>docs/DEPLOY.md</code> has step-by-step recipes (one host behind nginx, several instances on Redis, Vercel) and{' '}
        <code>docs/OPERATIONS.md</code> the day-to-day runbook.
      </p>

      <h2 id="running">Running it</h2>
      <CodeBlock label="Development">{examples.develop}</CodeBlock>
      <CodeBlock label="Production">{examples.produce}</CodeBlock>
      <p>
        Production refuses to start without <code>CREDITS_KEY_SECRET</code> (32 or more random characters, the same on every instance and
        never changed: every key sold is stored under it) and with any test-only setting. A bad value stops the service at startup with one
        message naming every bad variable.
      </p>

      <h2 id="local-sites">Checking a site on your own machine</h2>
      <p>
        The checks refuse what a public checker must: <code>localhost</code>, IP addresses, private addresses and every port but 80 and 443.
        To check a site you are building, say on port 8081, start the service with a name for it, <code>CHECK_HOST_MAP=shop.test=http://127.0.0.1:8081</code>,
        and check <code>http://shop.test/</code>. The <code>http://</code> in the entry says your server speaks plain HTTP only: the report then
        says the page is not served over HTTPS, and <code>https://shop.test/</code> fails as a real site without a certificate would. Several
        names are separated by commas. The setting is for development only: production refuses to start with it.
      </p>

      <h2 id="settings">Settings</h2>
      <p>
        Every setting is an environment variable, read once at startup. The repository&apos;s README (its configuration table) and{' '}
        <code>.env.example</code> give each one&apos;s default and meaning. The first to set: <code>APP_URL</code> (the public origin the payment
        challenges are bound to), <code>CREDITS_KEY_SECRET</code>, the store, <code>TRUSTED_PROXY</code> (who tells the client&apos;s address
        behind a proxy), and for the payment rails <code>MPP_SECRET_KEY</code>, <code>PAY_TO_ADDRESS</code>,{' '}
        <code>X402_FACILITATOR_URL</code>, <code>STRIPE_SECRET_KEY</code> and <code>STRIPE_WEBHOOK_SECRET</code>.
      </p>
      <details>
        <summary>All {CONFIG_VARIABLES.length + elsewhere.length} variables the service and its tools read</summary>
        <TableWrap label="Settings">
          <table>
            <caption>Read by the service at startup</caption>
            <ColumnHeads names={['Variable', 'Default']} />
            <tbody>
              {CONFIG_VARIABLES.map((name) => (
                <tr key={name}>
                  <th scope="row"><code><Wrappable text={name} /></code></th>
                  <td>{defaults[name] === undefined ? 'none' : <code><Wrappable text={defaults[name]} /></code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        <TableWrap label="Other settings">
          <table>
            <caption>Read by one part or tool</caption>
            <ColumnHeads names={['Variable', 'Read by']} />
            <tbody>
              {elsewhere.map(([name, by]) => (
                <tr key={name}>
                  <th scope="row"><code><Wrappable text={name} /></code></th>
                  <td>{by}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>

      <h2 id="stores">Stores</h2>
      <TableWrap label="Stores">
        <table>
          <caption>The store, chosen by which variable is set</caption>
          <ColumnHeads names={['Store', 'Set', 'For']} />
          <tbody>
            {STORES.map(([store, variable, use]) => (
              <tr key={store}>
                <th scope="row">{store}</th>
                <td><code><Wrappable text={variable} /></code></td>
                <td>{use}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <h2 id="watching">Health, metrics and logs</h2>
      <ul>
        <li>
          <code>GET /api/health?ready=1</code> checks the store (503 when it does not answer) and lists the live payment rails: point the
          load balancer at it.
        </li>
        <li>
          <code>GET /api/metrics</code> serves Prometheus metrics to <code>Authorization: Bearer &lt;METRICS_TOKEN&gt;</code>, and answers 404
          while <code>METRICS_TOKEN</code> is unset.
        </li>
        <li>
          Every response carries <code>X-Request-Id</code>; each log line is one JSON object with the request id, route, status, duration
          and, for paid calls, operation, rail and outcome. Secrets are masked; <code>LOG_LEVEL=silent</code> writes none.
        </li>
        <li>
          On SIGTERM the service drains: new paid calls get 503 <code>shutting-down</code>, calls in flight get{' '}
          <code>SHUTDOWN_GRACE_SECONDS</code> to finish, and a call cut short is given back, never charged.
        </li>
      </ul>

      <h2 id="tools">Keys and ledger tools</h2>
      <p>Run from the repository, against the store the settings name (SQLite, Redis and Vercel KV alike):</p>
      <TableWrap label="Keys and ledger tools">
        <table>
          <caption>Commands</caption>
          <ColumnHeads names={['Command', 'What it does']} />
          <tbody>
            {examples.tools.map(([command, what]) => (
              <tr key={command}>
                <th scope="row"><code className="command">{command}</code></th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
