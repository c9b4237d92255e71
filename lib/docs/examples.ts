import { checks } from '@/lib/checks/registry';
import { BASE_USDC_ADDRESS } from '@/lib/config';

// Every command and snippet the docs pages show, in one place, so a test can run each one as written
// (tests/e2e/docs-commands.test.ts). Every one names the service as $BASE (set once in the quick start), so it can
// be copied as it is, and calls the first check the registry lists with that check's own example body. The
// payment examples read the variables `npm run rails` (or `npm run dev`) prints: MPPX_PRIVATE_KEY for a wallet,
// MPPX_STRIPE_SECRET_KEY and MPPX_STRIPE_SPT_URL for the card.

/**
 * The docs' example commands for a deployment at `appUrl`.
 * @example docsExamples('https://checks.example').setBase // 'export BASE=https://checks.example'
 */
export function docsExamples(appUrl: string) {
  const check = checks()[0];
  const body = JSON.stringify(check.example);
  const url = `$BASE${check.path}`;
  return {
    check,
    setBase: `export BASE=${appUrl.replace(/\/$/, '')}`,
    prepaid: `export KEY=pac_live_…
curl -s $BASE/api/agent/credits -H "Authorization: Bearer $KEY"     # calls left
curl -s ${url} \\
  -H "Authorization: Bearer $KEY" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: order-0001" \\
  -d '${body}'`,
    unpaid: `curl -si ${url} -H "Content-Type: application/json" -d '${body}'   # 402 with the challenges`,
    rails: `npm run rails   # from a clone: a local chain with test USDC, an x402 facilitator and a Stripe stand-in`,
    mppCard: `# MPPX_STRIPE_SECRET_KEY: the card processor's secret key the CLI mints a shared payment token with;
# MPPX_STRIPE_SPT_URL: where it mints it (on the local rails, their Stripe stand-in)
npx mppx ${url} -J '${body}' --protocol mpp --currency usd -M paymentMethod=pm_card_visa`,
    mppEvm: `export MPPX_PRIVATE_KEY=0x…   # a wallet holding USDC on Base
npx mppx ${url} -J '${body}' --protocol mpp --currency ${BASE_USDC_ADDRESS}`,
    x402Cli: `npx mppx ${url} -J '${body}' --protocol x402`,
    x402: `node --input-type=module -e '
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(process.env.MPPX_PRIVATE_KEY) });
const pay = wrapFetchWithPayment(fetch, client);
const res = await pay(process.env.BASE + "${check.path}", {
  method: "POST",
  headers: { "Content-Type": "application/json", "Idempotency-Key": "order-0002" },
  body: JSON.stringify(${body}),
});
const settled = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE"));
console.log(res.status, settled.success, settled.transaction);'   # 200 true 0x…`,
    mcp: `curl -s $BASE/api/mcp \\
  -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" \\
  -H "Authorization: Bearer $KEY" \\
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${check.toolName}","arguments":${body}}}'`,
    mcpX402: `node --input-type=module -e '
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
const client = new Client({ name: "x402-demo", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.BASE + "/api/mcp")));
const call = { name: "${check.toolName}", arguments: ${body} };
const declared = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "org.x402/payment": {} } } };
const unpaid = await client.callTool({ ...call, _meta: declared });
const terms = JSON.parse(unpaid.content[0].text)["x402/error"].data;
const payer = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(process.env.MPPX_PRIVATE_KEY) });
const paid = await client.callTool({ ...call, _meta: { ...declared, "x402/payment": await payer.createPaymentPayload(terms) } });
console.log(paid._meta["x402/payment-response"].success, paid._meta["x402/payment-response"].transaction);
await client.close();'   # true 0x…`,
    mcpAdd: `claude mcp add --transport http paid-agent-checks $BASE/api/mcp --header "Authorization: Bearer $KEY"`,
    develop: 'npm ci && npm run dev      # http://localhost:3000, local payment rails included',
    produce: `npm ci && npm run build
NODE_ENV=production APP_URL=https://checks.example CREDITS_KEY_SECRET=… npm start`,
    tools: TOOLS,
  };
}

/** The keys and ledger tools, each with what it does: the self-hosting page's table. */
const TOOLS: ReadonlyArray<readonly [command: string, what: string]> = [
  ['npm run keys -- create --plan bundle-25', 'mints a key (bundle-25, bundle-100 or subscription) and prints it once'],
  ['npm run keys -- show <key>', 'calls left per grant, with expiries'],
  ['npm run keys -- usage <key> [--csv]', "the key's spent calls: when, which check, the call's reference, and whether it was given back"],
  ['npm run keys -- refund <creditsUsage>', 'gives one spent call back to its key, once'],
  ['npm run keys -- rotate <key>', 'a new key with the same grants and reports; the old one is revoked'],
  ['npm run keys -- revoke <key>', 'refuses the key from now on'],
  ['npm run ledger -- audit [--keys]', 'every key balances against its spent calls; exit 1 on a discrepancy'],
  ['npm run ledger -- settlements', 'payments whose settle call ended without an answer, each with its outcome'],
  ['npm run ledger -- reconcile', 'asks the chain and Stripe what became of those settlements now'],
];
