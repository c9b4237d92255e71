import { getConfig } from '@/lib/config';
import { checks } from '@/lib/checks/registry';
import { PRICE_USD } from '@/lib/price';
import { LIST_PAID_SERVICES } from '@/lib/transports/mcp/tools';
import { PAYMENT_REQUIRED_CODE } from '@/lib/transports/mcp/payment';
import { docsExamples } from '@/lib/docs/examples';
import { docsPageMetadata } from '@/lib/site/metadata';
import { CodeBlock, JsonBlock } from '@/components/CodeBlock';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

export const generateMetadata = () => docsPageMetadata('/docs/mcp');
// Examples name this deployment's own origin, known only at run time.
export const dynamic = 'force-dynamic';

export default function DocsMcp() {
  const appUrl = getConfig().APP_URL.replace(/\/$/, '');
  const examples = docsExamples(appUrl);
  return (
    <>
      <h1>MCP</h1>
      <p className="lead">
        <code>POST $BASE/api/mcp</code> serves the checks as Model Context Protocol tools over Streamable HTTP (stateless, plain JSON
        answers): an agent finds a check, pays for it and reads the result without leaving MCP.
      </p>

      <h2 id="quick-start-mcp">Tools</h2>
      <TableWrap label="MCP tools">
        <table>
          <caption>The tools</caption>
          <ColumnHeads names={['Tool', 'Price', 'Input and result']} />
          <tbody>
            {checks().map((c) => (
              <tr key={c.id}>
                <th scope="row"><code>{c.toolName}</code></th>
                <td>{PRICE_USD} USD</td>
                <td>
                  {c.service}: the body of <code>POST {c.path}</code>; the result&apos;s <code>structuredContent</code> is the REST 200 body,
                  its text a Markdown summary.
                </td>
              </tr>
            ))}
            <tr>
              <th scope="row"><code>{LIST_PAID_SERVICES}</code></th>
              <td>free</td>
              <td>Each paid service: name, description, price, rails, REST path, tool name, input schema.</td>
            </tr>
          </tbody>
        </table>
      </TableWrap>

      <h2 id="mcp-paying">Paying</h2>
      <p>
        With a prepaid key, send <code>Authorization: Bearer</code> on the HTTP request: every paid call spends one call, and the
        result&apos;s <code>_meta</code> carries <code>creditsRemaining</code>, <code>reportUrl</code> (the report&apos;s page, opened
        after signing in with the key) and <code>reportApiUrl</code> (the same report as JSON). Without one, an unpaid call answers
        JSON-RPC error <code>{PAYMENT_REQUIRED_CODE}</code> with the same challenges as the HTTP 402; an MPP client (mppx{' '}
        <code>McpClient</code>) retries with the credential in <code>params._meta</code> and finds the receipt in the result&apos;s{' '}
        <code>_meta</code>.
      </p>
      <CodeBlock label="MCP example">{examples.mcp}</CodeBlock>
      <p>
        x402 clients pay in band too: a call whose <code>params._meta</code> declares x402&apos;s MCP extension (or carries{' '}
        <code>x402/payment</code>) is answered with a tool result marked <code>isError</code> whose text holds the x402 terms; the client
        signs them and calls again with the payment in <code>_meta[&quot;x402/payment&quot;]</code>, and the result&apos;s{' '}
        <code>_meta[&quot;x402/payment-response&quot;]</code> carries the settlement. A call that declares nothing still gets the
        JSON-RPC error above, whose <code>data.x402</code> holds the same terms. With the MCP SDK and <code>@x402/core</code>, paying from
        the wallet in <code>MPPX_PRIVATE_KEY</code> (on the local rails, <code>npm run rails</code> prints one):
      </p>
      <CodeBlock label="x402 over MCP">{examples.mcpX402}</CodeBlock>

      <h2 id="mcp-clients">Adding it to a client</h2>
      <p>Claude Code:</p>
      <CodeBlock label="Claude Code">{examples.mcpAdd}</CodeBlock>
      <p>
        Cursor (<code>~/.cursor/mcp.json</code>, or <code>.cursor/mcp.json</code> in a project):
      </p>
      <JsonBlock
        label="Cursor configuration"
        value={{ mcpServers: { 'paid-agent-checks': { url: `${appUrl}/api/mcp`, headers: { Authorization: 'Bearer pac_live_…' } } } }}
      />
      <p>
        From a web page: the endpoint answers any origin (<code>Access-Control-Allow-Origin: *</code>, never with cookies), so a
        browser-hosted agent, or the MCP Inspector&apos;s Direct connection, calls it with <code>fetch</code> and pays in-band through{' '}
        <code>params._meta</code> as above. A credits key put in a page is readable by whoever runs that page.
      </p>
    </>
  );
}
