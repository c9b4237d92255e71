import type { CapabilityKey } from './schema';
import type { ReferenceId } from './references';

// What each finding says: the concrete failure, the fix as ordered steps, how to prove it and which primary
// source says so. Written from the MPP core and discovery drafts, the x402 v2 specification and extensions,
// the IETF Idempotency-Key draft, RFC 9457, EIP-3009, EIP-4361 and the processors' documentation
// (lib/checks/readiness/references.ts). Placeholders in <angle brackets> are the buyer's own values.

export const EFFORTS = ['small', 'medium', 'large'] as const;
export type Effort = (typeof EFFORTS)[number];

export const EFFORT_SCALE: Record<Effort, string> = {
  small: 'one engineer, up to a day: configuration, a library call or a document, plus its test',
  medium: 'one engineer, a few days: a new table or middleware with its tests, no change to how money moves',
  large: 'a week or more, or several people: a change to how money moves or how orders are stored, with a migration and failure tests',
};

/**
 * The opening of a verify step that names this service's Agent Payment Endpoint Check, where its rubric tests what
 * a capability claims: where to run it and where its rubric is, not a result.
 */
const ENDPOINT_CHECK_RUN = 'Run the Agent Payment Endpoint Check (POST /api/agent/payment-endpoint on this service; rubric at /docs/checks#payment-endpoint-rubric)';

export interface Verify {
  how: string;
  expect: string;
}

/**
 * A verify step's `how` is a command to paste (curl, npx, stripe, SQL, a placeholder command) unless it opens as a
 * sentence does: a capital letter followed by a small one or a space ("A test that…", "Look up…"). The site shows a
 * command as code with a copy button and the Markdown in backticks; a sentence stays text.
 * @example isVerifyCommand('npx mppx validate https://<your-host>') // true; isVerifyCommand('A test that …') // false
 */
export function isVerifyCommand(how: string): boolean {
  return !/^[A-Z][a-z\s]/.test(how);
}

/** What the finding's text depends on: who uses the workflow and where it runs. */
export interface Audience {
  agents: boolean;
  humans: boolean;
  production: boolean;
}

export interface CapabilityText {
  /** The plan's one line for fixing the capability. */
  action: string;
  /** What building the capability from nothing takes; a partial one takes one size less. */
  effort: Effort;
  risk: {
    missing(a: Audience): string;
    partial(a: Audience): string;
    /** When it is declared implemented but nothing checkable is named: what goes wrong if the claim is false. */
    unproven: string;
  };
  steps: readonly string[];
  verify: readonly Verify[];
  references: readonly ReferenceId[];
}

export const CAPABILITY_TEXTS: Record<CapabilityKey, CapabilityText> = {
  machine_discovery: {
    action: 'Publish /openapi.json with x-payment-info and a 402 response on every paid operation, and an llms.txt that links to it',
    effort: 'small',
    risk: {
      missing: (a) =>
        a.agents
          ? 'Agents and the registries that index paid APIs read the OpenAPI document to learn which operations cost money, how much and on which rail. ' +
            'Without it an agent learns the price only by calling a live paid endpoint, and registries that need x-payment-info do not list the service, so agent buyers never arrive.'
          : 'Only people reading your pages can find the paid operations: agents and the registries that index paid APIs from OpenAPI x-payment-info cannot list or price them.',
      partial: () =>
        'An incomplete or stale discovery document misleads the agents that trust it: it quotes a price, method or currency the live 402 challenge does not offer, ' +
        'so the agent either refuses the challenge as unexpected or budgets with the wrong price, and operations missing from it are never called.',
      unproven: 'If the document is missing or disagrees with the live challenge, agents mis-price or skip the service and nothing named here would show it.',
    },
    steps: [
      'Serve an OpenAPI 3.x document at /openapi.json over HTTPS (Content-Type: application/json) that describes every paid operation, its request body schema and its responses.',
      'On each paid operation add x-payment-info with one offer per rail: intent ("charge"), method, currency and amount as a string of digits in the currency\'s smallest unit ("100" for 1.00 USD in cents, "1000000" for 1 USDC with 6 decimals).',
      'Declare a 402 response on every paid operation, and add a top-level x-service-info whose docs links include your llms.txt.',
      'Publish /llms.txt: what the service sells, the price, how to pay, and a link to /openapi.json.',
      'Build the document from the same configuration the 402 challenge is built from, so the advertised terms cannot drift from the runtime ones.',
    ],
    verify: [
      { how: 'npx mppx discover validate https://<your-host>/openapi.json', expect: 'No errors: every paid operation has x-payment-info and a 402 response.' },
      {
        how: 'curl -s https://<your-host>/openapi.json | jq \'[.paths[][] | objects | ."x-payment-info" // empty]\'',
        expect: 'One entry per paid operation; each offer\'s amount and currency equal those of the live 402 challenge for that operation.',
      },
      {
        how: `${ENDPOINT_CHECK_RUN} against one paid operation`,
        expect: 'Its Discovery and One price items pass: the OpenAPI operation, the x402 bazaar extension and llms.txt state the price the live 402 asks.',
      },
    ],
    references: ['mpp-discovery', 'openapi-3.1', 'llms-txt', 'x402-bazaar', 'mppx'],
  },

  payment_challenge_and_receipt: {
    action: 'Answer unpaid calls with 402 and a fresh, single-use MPP or x402 challenge, and paid ones with a receipt',
    effort: 'large',
    risk: {
      missing: (a) =>
        a.agents
          ? 'An agent that calls a paid operation gets an error, or the work for free, instead of terms it can pay in-band: without a 402 carrying an MPP challenge ' +
            '(WWW-Authenticate: Payment) or an x402 PAYMENT-REQUIRED header it cannot pay at all, and without a receipt it cannot show its principal or your support what it paid for.'
          : 'Agents cannot buy: the only way to pay is a human checkout, and nothing machine-readable tells a client what a call costs.',
      partial: () =>
        'Half a payment flow fails at the edges: a challenge that is not single-use lets one paid credential be replayed, a success without Payment-Receipt (MPP) ' +
        'or PAYMENT-RESPONSE (x402) leaves the agent unable to prove it paid, and a failed credential answered with 400 or 500 instead of 402 and a fresh challenge leaves it unable to pay again.',
      unproven: 'If the challenge or receipt does not work as declared, agents either cannot pay or pay without proof, and nothing named here would show it.',
    },
    steps: [
      'Answer an unpaid request to a paid operation with 402, Cache-Control: no-store and an RFC 9457 problem body, carrying the terms: an MPP challenge in WWW-Authenticate: Payment (id, realm, method, intent, request, expires) and/or an x402 v2 PAYMENT-REQUIRED header (base64 JSON with x402Version 2, resource and accepts).',
      'Make every challenge verifiable by the server alone and short-lived: an id it can check (for example an HMAC over the challenge parameters), an expiry, and for requests with a body the digest parameter (an RFC 9530 content digest), so a credential paid for one body cannot buy another.',
      'Verify the credential (Authorization: Payment, or PAYMENT-SIGNATURE for x402) before doing any work, let each one settle once, and answer a malformed, expired, used or failed one with 402 and a fresh challenge.',
      'On success answer 200 with Payment-Receipt (MPP: status "success", method, timestamp, reference) or PAYMENT-RESPONSE (x402: success, transaction, network, payer) and Cache-Control: private; never send a receipt on an error.',
      'Change nothing for an unpaid request beyond recording the challenge, and let concurrent requests with one credential settle and deliver at most once.',
    ],
    verify: [
      {
        how: "curl -si -X POST https://<your-host>/<paid-path> -H 'Content-Type: application/json' -d '<valid body>'",
        expect: 'HTTP 402 with Cache-Control: no-store, a WWW-Authenticate: Payment and/or PAYMENT-REQUIRED header, and an application/problem+json body.',
      },
      {
        how: 'npx mppx validate https://<your-host> --endpoint POST:/<paid-path>',
        expect: 'The challenge checks pass, a malformed credential gets 402 with a fresh challenge, and the paid call returns a parseable Payment-Receipt.',
      },
      { how: 'A test that sends the same paid credential twice', expect: 'The second request gets 402 with a fresh challenge and no second settlement.' },
      {
        how: `${ENDPOINT_CHECK_RUN} against the paid endpoint, with paidRoundTrip on a test network`,
        expect: 'Its Reachability, x402 terms, MPP challenges and Bad credentials items pass; the paid round trip\'s receipt parses and its replay settles nothing.',
      },
    ],
    references: ['mpp-core', 'x402-http', 'x402-v2', 'rfc-9110-402', 'rfc-9457', 'rfc-9530', 'mppx'],
  },

  idempotency: {
    action: 'Make every paid POST idempotent under an Idempotency-Key bound to the caller and a fingerprint of the body',
    effort: 'medium',
    risk: {
      missing: (a) =>
        (a.agents
          ? 'Agents retry on timeouts and dropped connections. A retry after the payment settled but before the answer arrived pays again for the same work: ' +
            'MPP and x402 credentials are single-use, so the retry carries a new credential and becomes a second charge.'
          : 'A double-click or a browser retry of the purchase request charges the buyer twice for one order.') +
        (a.agents && a.humans ? ' People double-click the same way.' : ''),
      partial: () =>
        'Idempotency that covers part of the flow fails on exactly the retries that matter: keys kept in memory are gone after a restart, keys not scoped to the caller ' +
        'let one caller receive another\'s answer, and a key accepted with a different body replays the wrong result or charges again.',
      unproven: 'If retries are not replayed as declared, the first agent retry after a timeout is charged twice, and nothing named here would show it before a buyer does.',
    },
    steps: [
      'Accept an Idempotency-Key header on every paid POST; publish its format (for example a UUID) and refuse anything else with 400.',
      'Store the key with the caller it belongs to (account, credits key or verified payer) and a fingerprint of the request (a hash of the body), in the same durable store as the order, before charging.',
      'On a retry with the same key and body, return the stored answer (status, body and receipt) without running the work or charging again, and mark it (for example Idempotent-Replayed: true).',
      'Refuse the same key with a different body (the IETF draft answers 422; x402\'s payment-identifier extension answers 409), and answer 409 while the first request is still in progress.',
      'Expire keys after a published period (for example 24 hours) and say so in the docs.',
      'For x402 clients, advertise the payment-identifier extension in PAYMENT-REQUIRED and treat its id (16 to 128 characters) as the same key.',
    ],
    verify: [
      {
        how: "curl -si -X POST https://<your-host>/<paid-path> -H 'Idempotency-Key: test-0001' -H '<payment or key header>' -d '<body>'",
        expect: 'Sent twice: the second answer has the same body and receipt and is marked as a replay; your ledger shows one charge.',
      },
      { how: 'The same Idempotency-Key with a different body', expect: '422 (409 for an x402 payment-identifier) with an application/problem+json body, and no charge.' },
      { how: 'A test that sends two requests with one key at the same moment', expect: 'One runs; the other gets 409 or the stored answer; one settlement.' },
      {
        how: `${ENDPOINT_CHECK_RUN} against the paid endpoint, with paidRoundTrip on a test network`,
        expect: 'Its Paid round trip item passes: the same payment-identifier with the same body returns the first answer with no second transfer, and with another body 409.',
      },
    ],
    references: ['idempotency-key', 'mpp-core', 'x402-payment-identifier', 'stripe-idempotency'],
  },

  webhook_verification: {
    action: 'Verify every payment webhook\'s signature on the raw body and process each event id once',
    effort: 'small',
    risk: {
      missing: () =>
        'Anyone who finds the webhook URL can post a payment_intent.succeeded (or any "paid") event and receive the goods: an unsigned event cannot be told from a real one. ' +
        'Processors also deliver events more than once and out of order, so without deduplication one payment is fulfilled twice.',
      partial: () =>
        'Partial verification is usually one of three holes: the signature is checked on a re-serialised body (so it fails and gets switched off), the timestamp is not checked ' +
        '(so a captured event can be replayed), or the event id is not recorded (so a redelivered event fulfils twice).',
      unproven: 'If the signature check is not in place as declared, one forged POST to the webhook URL fulfils an order for free, and nothing named here would show it.',
    },
    steps: [
      'Read the raw request body before any JSON parsing: the signature covers the exact bytes.',
      'Verify the signature with the endpoint\'s signing secret through the processor\'s library (Stripe: stripe.webhooks.constructEvent with the Stripe-Signature header), with its timestamp tolerance (Stripe\'s default is 5 minutes); answer 400 to anything that fails and act on nothing.',
      'Record each event id under a unique constraint in the same transaction as its effect, and acknowledge a duplicate with 2xx without acting again.',
      'Before fulfilling, check the amount, currency and your order id against your own record (or fetch the object from the processor\'s API); do not assume events arrive in order.',
      'Keep the signing secret out of code and logs, and accept both secrets while rotating it.',
    ],
    verify: [
      {
        how: "curl -si -X POST https://<your-webhook-url> -H 'Content-Type: application/json' -H 'Stripe-Signature: t=1700000000,v1=00' -d '{\"id\":\"evt_forged\",\"type\":\"payment_intent.succeeded\"}'",
        expect: '400, and no order changes state.',
      },
      {
        how: 'stripe events resend <event id>',
        expect:
          'With stripe listen --forward-to <your-webhook-url> running, after stripe trigger payment_intent.succeeded was acted on once: the resent event is acknowledged with 2xx and changes nothing.',
      },
    ],
    references: ['stripe-webhook-signatures', 'stripe-webhooks'],
  },

  durable_fulfillment: {
    action: 'Record each order durably before charging and fulfil from that record, idempotently, so a restart resumes it',
    effort: 'large',
    risk: {
      missing: (a) =>
        `A payment that settles while the order lives only in memory, in a request handler or in a queue without persistence is lost on the first crash, deploy or timeout: ${a.agents ? 'the agent' : 'the buyer'} ` +
        'has paid, nothing records what for, and nothing resumes the work.',
      partial: () =>
        'Fulfilment recorded on some paths and not others loses exactly the orders that take the unrecorded path, typically a timeout between settlement and delivery, ' +
        'or a payment whose confirmation arrives after the request has ended.',
      unproven: 'If orders are not durably recorded as declared, the first crash after a settlement loses a paid order, and nothing named here would show it.',
    },
    steps: [
      'Write the order (request, price, caller, idempotency key, state "pending") to a durable, transactional store before asking for or settling payment.',
      'After settlement, record the payment reference (transaction hash or PaymentIntent id) on the same order in one write, and fulfil from that record, not from memory.',
      'Make fulfilment idempotent by order id, so running it twice delivers once, and run it both in the request and from a background worker that picks up paid, unfulfilled orders.',
      'Move each order through explicit states (pending, paid, fulfilled, refunded) and never delete one.',
    ],
    verify: [
      {
        how: 'A test that stops the process after settlement and before the answer, then starts it again',
        expect: 'The order is found as paid and fulfilled once, and a retry with the same key gets the stored answer.',
      },
      {
        how: "SELECT state, count(*) FROM <your orders table> WHERE state = 'paid' AND updated_at < now() - interval '<worker interval>' GROUP BY state",
        expect: 'No rows: no order stays paid without being fulfilled or refunded.',
      },
    ],
    references: ['stripe-fulfillment', 'mpp-core', 'idempotency-key'],
  },

  user_authentication: {
    action: 'Authenticate every request that spends money or shows purchases, with hashed keys and per-object ownership checks',
    effort: 'medium',
    risk: {
      missing: (a) =>
        a.humans
          ? 'Whoever knows or guesses an account id, order link or key can spend a buyer\'s balance or read what they bought, and a leaked key cannot be revoked.'
          : 'Agents are the only users, so payment credentials identify the payer; but any balance, key or stored result is open to whoever holds its identifier.',
      partial: () =>
        'Partial authentication leaves one path open: purchases behind a sign-in but receipts or reports at guessable addresses, keys stored in plaintext, ' +
        'or sessions that survive a key rotation.',
      unproven: 'If authentication is not what the declaration says, anyone can spend a buyer\'s balance, and nothing named here would show it.',
    },
    steps: [
      'Authenticate every request that spends money or shows purchases: a session cookie (HttpOnly, Secure, SameSite) after sign-in, a passkey, or an API key.',
      'Store API keys and passwords only as hashes (keys: SHA-256 of a high-entropy random key; passwords: a slow hash such as Argon2id or scrypt), and show a new key once.',
      'Check ownership on every object read (order, report, receipt), not only at sign-in, and use ids that cannot be guessed.',
      'Let users revoke and rotate keys and end sessions, and ask for a recent sign-in before those changes.',
      'Rate-limit sign-in and key use, and log failures without logging secrets.',
    ],
    verify: [
      {
        how: 'curl -si https://<your-host>/<purchase-or-report-path>',
        expect: 'With no cookie or key: 401. With another user\'s cookie or key (add -H \'Authorization: Bearer <their key>\'): 403 or 404. Never the data.',
      },
      { how: 'SELECT <key column> FROM <your keys table> LIMIT 1', expect: 'A hash, not a usable key.' },
    ],
    references: ['owasp-authentication', 'owasp-session'],
  },

  wallet_ownership: {
    action: 'Take the payer from the signed payment and bind wallets to accounts with a signed sign-in message',
    effort: 'medium',
    risk: {
      missing: (a) =>
        'Payments arrive from addresses bound to no one: a refund or support claim cannot be matched to a buyer, and someone who merely claims the paying wallet can ask for its receipts or refunds' +
        (a.agents ? '; an agent\'s payments cannot be tied to the principal behind it.' : '.'),
      partial: () =>
        'A wallet recorded from a field the client types, rather than from the signature, can be anyone\'s: refunds and receipts follow the claim, not the payer.',
      unproven: 'If payers are not bound as declared, refunds can go to whoever claims a wallet, and nothing named here would show it.',
    },
    steps: [
      'Take the payer from the verified payment itself: the address that signed the transfer authorization (EIP-3009 transferWithAuthorization or Permit2 in x402 exact on EVM; the evm method in MPP), never a field the client types.',
      'To bind a wallet to an account, have the user sign a Sign-In with Ethereum (EIP-4361) message naming your domain, a nonce you issued and an expiry; verify it on the server and store the address on the account.',
      'Send refunds only to a bound, verified address, and show that address on receipts.',
    ],
    verify: [
      { how: 'A test that pays with an authorization signed by wallet A while the body claims wallet B', expect: 'The order records A as the payer.' },
      { how: 'Submit a used EIP-4361 message and nonce again', expect: 'Refused: each nonce signs in once.' },
    ],
    references: ['eip-3009', 'eip-4361', 'x402-exact-evm'],
  },

  onramp_provider_handoff: {
    action: 'Offer a card rail beside the stablecoin rail, or link an on-ramp for the exact network and token the challenge asks for',
    effort: 'small',
    risk: {
      missing: (a) =>
        a.agents && !a.humans
          ? 'An agent whose wallet is empty or on another network has no path to the funds the challenge asks for; its principal must find an on-ramp alone, and most give up at the 402.'
          : 'A buyer with no stablecoins on the right network cannot pay on the stablecoin rail at all, and without a card rail or an on-ramp link leaves at the 402.',
      partial: () =>
        'An on-ramp that funds another network or token than the one the challenge asks for leaves the buyer with money they still cannot pay with.',
      unproven: 'If the funding path does not exist as declared, buyers without stablecoins cannot pay, and nothing named here would show it.',
    },
    steps: [
      'Offer a fiat rail beside the stablecoin rail (for example cards through MPP\'s stripe method), or link an on-ramp provider from the payment page and the 402 problem detail, preset to the network (for example Base, eip155:8453) and token (USDC) your challenge asks for.',
      'Say in the docs and llms.txt which network and token a wallet needs, with the token\'s contract address.',
    ],
    verify: [
      { how: 'Open the payment page with a wallet that holds no USDC', expect: 'A card option, or an on-ramp link for the token and network in the challenge.' },
      {
        how: "curl -si -X POST https://<your-host>/<paid-path> -H 'Content-Type: application/json' -d '<valid body>'",
        expect: 'The 402 offers a card method, or its problem detail links the on-ramp and names the network and token.',
      },
    ],
    references: ['stripe-onramp', 'mpp-core', 'x402-v2'],
  },

  delivery_evidence: {
    action: 'Store, per payment, the payment reference with a hash of what was delivered, and return that hash to the buyer',
    effort: 'medium',
    risk: {
      missing: (a) =>
        'When a charge is disputed you cannot show what was delivered for it. Card disputes are decided on the evidence you submit, so without it they are lost by default, ' +
        'often with a fee; stablecoin payments have no chargeback, so the only answer is your support, which needs the same record' +
        (a.agents ? ', and an agent\'s principal asking what was bought gets no answer.' : '.'),
      partial: () =>
        'Evidence kept for some deliveries and not others, or kept without the payment reference, cannot be matched to the disputed charge when it matters.',
      unproven: 'If the delivery record does not exist as declared, the first dispute is lost by default, and nothing named here would show it.',
    },
    steps: [
      'For each fulfilled order store the payment reference (transaction hash or PaymentIntent id), a hash of the request, a hash of what was delivered (for example SHA-256 of the response body) and the time.',
      'Return the delivered artifact\'s hash to the buyer in the response and on the receipt page, so both sides hold the same record.',
      'Keep access logs that show the buyer received the result (who, when, what), without credentials or secrets.',
      'Keep these records for at least your longest dispute window (card networks allow months) and make them retrievable by payment reference.',
    ],
    verify: [
      {
        how: 'Look up one paid order by its payment reference',
        expect: 'The request hash, the delivered artifact\'s hash and the delivery time; the hash equals SHA-256 of the body the buyer received.',
      },
      { how: 'A test that buys a result, recomputes its hash and compares it with the stored one', expect: 'Equal.' },
    ],
    references: ['stripe-disputes', 'owasp-logging', 'mpp-core'],
  },

  recovery_and_reconciliation: {
    action: 'Reconcile settled payments against orders on a schedule, and fulfil or refund every mismatch by rule',
    effort: 'large',
    risk: {
      missing: (a) =>
        'Partial failures leave payments and orders disagreeing: a settlement that timed out but completed, a fulfilment that crashed, a webhook that never arrived. ' +
        `Without reconciliation nobody finds them: ${a.agents ? 'agents are' : 'buyers are'} charged for nothing and you learn of it only from complaints, if at all.`,
      partial: () =>
        'Reconciliation that covers one rail or runs by hand misses the drift on the others: an EIP-3009 authorization that settled after a facilitator timeout, or a card payment captured after the request failed.',
      unproven: 'If reconciliation does not run as declared, charged-but-undelivered orders pile up unseen, and nothing named here would show it.',
    },
    steps: [
      'Run a reconciliation job on a schedule that lists settled payments from the source of truth (the processor\'s API; on chain, transfers to your payTo address, and the state of each authorization nonce: authorizationState for EIP-3009, the Permit2 nonce bitmap otherwise) and matches each to an order by its reference.',
      'Act on each mismatch by rule: paid but not fulfilled, fulfil or refund; fulfilled but not paid, flag it; payment state unknown after a timeout, ask again before letting the buyer pay again.',
      'Record every outcome (what was found, what was done, when) so the trail can be audited.',
      'Alert when a mismatch is older than a threshold, and keep a runbook for the cases a person must decide.',
      'Reconcile payouts against settled payments (for Stripe, the payout reconciliation report) every month.',
    ],
    verify: [
      {
        how: 'A test that settles a payment, kills fulfilment, then runs the reconciliation job',
        expect: 'The order is fulfilled or refunded, and the outcome is recorded.',
      },
      { how: '<your reconciliation command> against staging', expect: 'Zero unexplained mismatches; each earlier one closed with a recorded outcome.' },
    ],
    references: ['stripe-payout-reconciliation', 'eip-3009', 'stripe-webhooks'],
  },
};

/** The plan's line for a finding that asks for checkable evidence of a capability declared implemented. */
export function evidenceAction(title: string): string {
  return `Name checkable evidence for ${title.toLowerCase()}: the test, file, command or record that proves it`;
}

/** The steps of a finding that asks for checkable evidence of a capability declared implemented. */
export function evidenceSteps(title: string): string[] {
  return [
    `Name the proof of ${title.toLowerCase()} in the declaration: the test that exercises it (file or name), the file that implements it, or the command below with its expected result.`,
    'Keep that test or command in CI, so the evidence stays true after the next change.',
  ];
}
