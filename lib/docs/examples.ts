import { checks } from '@/lib/checks/registry';
import { BASE_USDC_ADDRESS } from '@/lib/config';

// The commands the docs pages show, in one place: every one names the service as $BASE (set once in the quick
// start), so it can be copied as it is, and calls the first check the registry lists with that check's own
// example body.

/**
 * The docs' example commands for a deployment at `appUrl`.
 * @example docsExamples('https://checks.example').setBase // 'export BASE=https://checks.example'
 */
export function docsExamples(appUrl: string) {
  const check = checks()[0];
  const body = JSON.stringify(check.example);
  return {
    check,
    setBase: `export BASE=${appUrl.replace(/\/$/, '')}`,
    prepaid: `export KEY=pac_live_…
curl -s $BASE/api/agent/credits -H "Authorization: Bearer $KEY"     # calls left
curl -s $BASE${check.path} \\
  -H "Authorization: Bearer $KEY" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: order-0001" \\
  -d '${body}'`,
    unpaid: `curl -si $BASE${check.path} -H "Content-Type: application/json" -d '${body}'   # 402 with the challenges`,
    mppCard: `mppx $BASE${check.path} -J '${body}' --protocol mpp --currency usd -M paymentMethod=pm_card_visa`,
    mppEvm: `export MPPX_PRIVATE_KEY=0x…   # a wallet holding USDC on Base
mppx $BASE${check.path} -J '${body}' --protocol mpp --currency ${BASE_USDC_ADDRESS}`,
    x402: `import { wrapFetchWithPayment } from '@x402/fetch';
// client: an x402 client with an exact EVM scheme for your signer (see @x402/fetch)
const pay = wrapFetchWithPayment(fetch, client);
const res = await pay(\`\${process.env.BASE}${check.path}\`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'order-0002' },
  body: JSON.stringify(${body}),
});`,
    mcp: `curl -s $BASE/api/mcp \\
  -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" \\
  -H "Authorization: Bearer $KEY" \\
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${check.toolName}","arguments":${body}}}'`,
    mcpAdd: `claude mcp add --transport http paid-agent-checks $BASE/api/mcp --header "Authorization: Bearer $KEY"`,
  };
}
