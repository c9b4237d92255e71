import { CONFIG_VARIABLES } from '@/lib/config';
import { docsPageMetadata } from '@/lib/site/metadata';
import { CodeBlock } from '@/components/CodeBlock';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import { Wrappable } from '@/components/docs/Wrappable';

export const generateMetadata = () => docsPageMetadata('/docs/self-hosting');

// What an operator needs to run the service from a clone of its repository. The settings' meanings and
// defaults are in the repository's README (its configuration table) and .env.example, which a test holds to
// lib/config.ts; this page names them all and says which matter first.

const STORES: Array<[string, string, string]> = [
  ['SQLite (the default)', 'DATA_DIR', 'One process on one host. The file lives in DATA_DIR (./.data); back it up while serving with SQLite\'s online backup.'],
  ['Redis', 'REDIS_URL', 'Several processes or machines: every key, balance, reservation and idempotency record in one Redis.'],
  ['Vercel KV (Upstash)', 'KV_REST_API_URL', 'Vercel, where SQLite is refused at startup; set KV_REST_API_TOKEN with it.'],
];

const TOOLS: Array<[string, string]> = [
  ['npm run keys -- create --plan bundle-25', 'mints a key (bundle-25, bundle-100 or subscription) and prints it once'],
  ['npm run keys -- show <key>', 'calls left per grant, with expiries'],
  ['npm run keys -- usage <key> [--csv]', 'the key\'s spent calls: time, operation, creditsUsage, given back or not'],
  ['npm run keys -- refund <creditsUsage>', 'gives one spent call back to its key, once'],
  ['npm run keys -- rotate <key>', 'a new key with the same grants and reports; the old one is revoked'],
  ['npm run keys -- revoke <key>', 'refuses the key from now on'],
  ['npm run ledger -- audit [--keys]', 'every key balances against its spent calls; exit 1 on a discrepancy'],
  ['npm run ledger -- settlements', 'payments whose settle call ended without an answer, each with its outcome'],
  ['npm run ledger -- reconcile', 'asks the chain and Stripe what became of those settlements now'],
];

export default function DocsSelfHosting() {
  return (
    <>
      <h1>Self-hosting</h1>
      <p className="lead">
        The service is one Next.js application with its store beside it. These are the pieces an operator touches; the repository&apos;s{' '}
        <code>docs/DEPLOY.md</code> has step-by-step recipes (one host behind nginx, several instances on Redis, Vercel) and{' '}
        <code>docs/OPERATIONS.md</code> the day-to-day runbook.
      </p>

      <h2 id="running">Running it</h2>
      <CodeBlock label="Development">{'npm ci && npm run dev      # http://localhost:3000, local payment rails included'}</CodeBlock>
      <CodeBlock label="Production">{`npm ci && npm run build
NODE_ENV=production APP_URL=https://checks.example CREDITS_KEY_SECRET=… npm start`}</CodeBlock>
      <p>
        Production refuses to start without <code>CREDITS_KEY_SECRET</code> (32 or more random characters, the same on every instance and
        never changed: every key sold is stored under it) and with any test-only setting. A bad value stops the service at startup with one
        message naming every bad variable.
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
        <summary>All {CONFIG_VARIABLES.length} variables the service reads</summary>
        <ul className="identifier-list">
          {CONFIG_VARIABLES.map((name) => (
            <li key={name}>
              <code><Wrappable text={name} /></code>
            </li>
          ))}
        </ul>
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
            {TOOLS.map(([command, what]) => (
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
