import { EngineContext } from '../engine/context'

/** GET /api/swap: how to create and follow a swap, for a human or a client generator. */
export function usage(ctx: EngineContext) {
    return {
        description: 'Create a cross-chain swap: POST a JSON body to /api/swap, send the source asset to the returned deposit_address before expires_at, then follow the swap.',
        method: 'POST',
        path: '/api/swap',
        content_type: 'application/json',
        body: {
            source_chain: { type: 'string', required: true, description: 'chain sent from, exactly as GET /api/tokens names it (e.g. BSC)' },
            source_token: { type: 'string', required: true, description: 'token sent, exactly as listed for that chain (e.g. USDT)' },
            target_chain: { type: 'string', required: true, description: 'chain received on' },
            target_token: { type: 'string', required: true, description: 'token received' },
            source_token_amount: { type: 'number', required: true, description: 'whole tokens to send (a decimal string is accepted too, exact for 18-decimal tokens); within the route\'s min_amount and max_amount' },
            target_wallet: { type: 'string', required: true, description: 'address on the target chain that receives the payout' },
            refund_address: { type: 'string', required: false, description: 'address on the source chain where a failed swap\'s deposit is returned; without it a failed swap is not refunded' },
            min_target_amount: {
                type: 'string', required: false,
                description: 'whole target tokens (a decimal string; a number is accepted too): the least payout you accept. When the rate locked at the deposit pays less, ' +
                    `the swap fails ("rate moved beyond the allowed slippage") and is refunded to refund_address. Default: estimated_target_amount less ${(ctx.config.maxSlippageBps / 100).toFixed(2)}%; ` +
                    `more than ${(ctx.config.minTargetAboveQuoteBps / 100).toFixed(2)}% above the quote is refused (400), since such a swap could only fail`,
            },
        },
        example: {
            source_chain: 'BSC', source_token: 'USDT', target_chain: 'NATIVECHAIN', target_token: 'NATIVE',
            source_token_amount: 100, target_wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', refund_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        },
        response: '201 with the swap: id (also as swap_id), deposit_address, expires_at, status, estimated_target_amount, min_target_amount, fee_percent, ...',
        rules: [
            'send to the swap\'s deposit_address, not to the bridge vault',
            'send exactly the asset on exactly the chain the swap names; another asset or chain is not detected',
            'send in one transfer, before expires_at; only the first transfer is credited and a late one is only refunded',
            `the fee (${ctx.config.feePercent}%) is taken from the deposit; the rate is locked when the deposit is final, and a rate paying less than min_target_amount fails the swap`,
            'a route priced by reference prices answers 503 price_unavailable while its price is stale; a deposited swap then waits at deposit_confirmed until the price is current',
        ],
        follow: {
            status: 'GET /api/swap/{id}/status',
            detail: 'GET /api/swap/{id}',
            events: 'GET /api/swap/{id}/events',
            websocket: 'ws /ws: send {"type":"subscribe","swap_id":"..."} (or {"type":"subscribe","address":"0x..."}); send {"type":"ping"} at least every ' +
                `${ctx.config.wsIdleSeconds} seconds`,
        },
    }
}
