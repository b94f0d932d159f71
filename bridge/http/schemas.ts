import { z } from 'zod'

/**
 * The bridge API's answers as its OpenAPI document states them: the fields docs/bridge/*.md names,
 * open to more (docs/openapi.md). Amounts are decimal strings of whole tokens.
 */

const text = z.string()
const maybe = z.string().nullable()
/** ISO 8601. */
const time = z.string()

export const Tokens = z.looseObject({
    chains: z.array(z.looseObject({
        name: text,
        chain_id: z.number().int().nullable(),
        family: text,
        enabled: z.boolean(),
        tokens: z.array(z.looseObject({
            symbol: text,
            name: text,
            decimals: z.number().int(),
            type: z.enum(['coin', 'token']),
            contract_address: maybe,
            enabled: z.boolean(),
            min_amount: text,
            max_amount: text,
        })),
    })),
}).meta({ id: 'BridgeTokens' })

const PriceView = z.looseObject({ usd: text, fetched_at: maybe, stale: z.boolean() })

export const SwapConfig = z.looseObject({
    fee_percent: text,
    deposit_window_seconds: z.number(),
    monitor_interval_seconds: z.number(),
    networks: z.array(z.looseObject({
        chain: text,
        family: text,
        enabled: z.boolean(),
        chain_id: z.number().int().nullable(),
        confirmations: maybe,
        finality_seconds: z.number().nullable().meta({ description: 'Rough seconds until a block is final by `confirmations`: typical figures, for an estimate of how long a swap takes (bridge/chains/timing.ts)' }),
        vault_address: maybe,
        explorer: z.looseObject({
            tx: text.meta({ description: 'A transaction\'s page, `{hash}` to replace' }),
            address: text.meta({ description: 'An address\'s page, `{address}` to replace' }),
        }).nullable().meta({ description: 'Block explorer links (BRIDGE_EXPLORER_URL_<CHAIN>); null without one' }),
    })),
    pools: z.array(z.looseObject({ id: text, chain: text, base_token: text, quote_token: text, price_path: text })),
    reference_prices_usd: z.record(z.string(), text),
    price_source: z.looseObject({ kind: text, max_age_seconds: z.number().nullable(), prices: z.record(z.string(), PriceView) }),
    max_slippage_percent: text,
    routes: z.array(z.looseObject({
        source_chain: text,
        source_token: text,
        target_chain: text,
        target_token: text,
        kind: text,
        legs: z.array(z.looseObject({ type: text, from: text, to: text })),
        min_amount: text,
        max_amount: text,
        enabled: z.boolean(),
        disabled_reason: text.optional(),
    })),
    statuses: z.array(text),
    event_types: z.array(text),
    rate_limit: z.looseObject({ create_per_ip: z.number().int(), window_seconds: z.number().int() }),
    websocket: z.looseObject({ path: text, idle_timeout_seconds: z.number().int() }),
}).meta({ id: 'BridgeSwapConfig' })

export const PoolPrice = z.looseObject({
    pool: text,
    chain: text,
    pair_address: text,
    base_token: text,
    quote_token: text,
    /** Quote tokens per base token. */
    price: text,
    reserve_base: text,
    reserve_quote: text,
    pool_fee_percent: text,
    block_number: text,
    timestamp: time,
}).meta({ id: 'BridgePoolPrice' })

export const Usage = z.looseObject({
    description: text,
    method: z.literal('POST'),
    path: text,
    content_type: text,
    body: z.record(z.string(), z.looseObject({ type: text, required: z.boolean(), description: text })),
    example: z.record(z.string(), z.unknown()),
    rules: z.array(text),
    follow: z.record(z.string(), text),
}).meta({ id: 'BridgeUsage' })

const PoolTrade = z.looseObject({
    pool: text,
    chain: text,
    pair_address: text,
    tx_hash: text,
    block_number: text,
    token_in: text,
    token_out: text,
    amount_in: text,
    locked_amount_out: text,
    amount_out_min: text,
    amount_out: text,
})

const SwapFees = z.looseObject({
    bridge: z.looseObject({ percent: text, amount: maybe.meta({ description: 'Known once the rate is locked' }), token: text }),
    pools: z.array(z.looseObject({ pool: text, chain: text, percent: text, token: text, amount: maybe })),
    provider: z.looseObject({ name: text, included_in_rate: z.literal(true) }).nullable(),
    network: z.looseObject({ deducted: z.literal(false) }).meta({ description: 'The bridge pays its own transactions\' fees; they are not taken from the payout' }),
})

export const Swap = z.looseObject({
    id: text,
    swap_id: text,
    status: text,
    source_chain: text,
    source_token: text,
    source_token_amount: text,
    target_chain: text,
    target_token: text,
    target_wallet: text,
    refund_address: maybe,
    deposit_address: text,
    expires_at: time,
    route: z.looseObject({ kind: text, legs: z.array(z.unknown()), min_amount: text, max_amount: text }),
    fee_percent: text,
    estimated_target_amount: maybe,
    min_target_amount: maybe,
    deposit_tx_hash: maybe,
    deposit_amount: maybe,
    deposit_block_number: maybe,
    fee_amount: maybe,
    fees: SwapFees.meta({ description: 'Each fee of the swap: the bridge\'s (from the deposit), each pool leg\'s and the provider\'s (in the rate)' }),
    rate: maybe,
    target_token_amount: maybe,
    rate_locked_at: maybe,
    gather_tx_hash: maybe,
    payout_tx_hash: maybe,
    pool_trade: PoolTrade.nullable(),
    amount_sent: maybe,
    refund_status: z.enum(['pending', 'sent', 'failed', 'not_requested']).nullable(),
    refund_tx_hash: maybe,
    refund_amount: maybe,
    refund_attempts: z.number().int(),
    refund_next_attempt_at: maybe,
    refund_error: maybe,
    error_message: maybe,
    hold: z.looseObject({ reason: text, since: time, operator_action_required: z.boolean() }).nullable(),
    created_at: time,
    updated_at: time,
    finished_at: maybe,
}).meta({ id: 'BridgeSwap' })

/** One transfer that makes up a late deposit (whole tokens of the source asset). */
const LateDepositTransfer = z.looseObject({
    tx_hash: text,
    amount: text,
    block_number: text,
})

const LateDeposit = z.looseObject({
    id: text,
    status: text,
    amount: text,
    tx_hash: maybe,
    transfers: z.array(LateDepositTransfer),
    unattributed_amount: text,
    block_number: text,
    gather_tx_hash: maybe,
    refund_address: maybe,
    refund_tx_hash: maybe,
    refund_amount: maybe,
    operator_action_required: z.boolean(),
    error: maybe,
    detected_at: time,
})

export const SwapWithLateDeposits = Swap.extend({ late_deposits: z.array(LateDeposit) }).meta({ id: 'BridgeSwapDetail' })

/** Exactly these five fields (docs/bridge/lifecycle.md). */
export const SwapStatus = z.strictObject({
    id: text,
    status: text,
    deposit_tx_hash: maybe,
    payout_tx_hash: maybe,
    error_message: maybe,
}).meta({ id: 'BridgeSwapStatus' })

export const SwapEvents = z.looseObject({
    swap_id: text,
    status: text,
    events: z.array(z.looseObject({
        id: text,
        event: text,
        status: text,
        tx_hash: maybe,
        data: z.record(z.string(), z.unknown()),
        timestamp: time,
    })),
}).meta({ id: 'BridgeSwapEvents' })

const feeIn = z.looseObject({ token: text, amount: text })

/** GET /api/swap/quote (quote.ts). */
export const SwapQuote = z.looseObject({
    source_chain: text,
    source_token: text,
    target_chain: text,
    target_token: text,
    source_token_amount: text,
    estimated_target_amount: text.meta({ description: 'What the swap pays at today\'s rate, after every fee' }),
    rate: text.meta({ description: 'Target per source, whole tokens, after the fee' }),
    min_target_amount: text.meta({ description: 'The least payout a swap created now accepts by default (the estimate less BRIDGE_MAX_SLIPPAGE_PERCENT)' }),
    max_target_amount: text.meta({ description: 'The most it may pay (the estimate plus BRIDGE_MAX_SLIPPAGE_PERCENT), which the target vault can pay now' }),
    fee_percent: text,
    fees: z.looseObject({
        bridge: feeIn.extend({ percent: text }),
        pools: z.array(feeIn.extend({ pool: text, chain: text, percent: text })),
        provider: z.looseObject({ name: text, included_in_rate: z.literal(true) }).nullable(),
        network: z.looseObject({
            gather: feeIn.extend({ chain: text }),
            payout: feeIn.extend({ chain: text }),
            deducted: z.literal(false).meta({ description: 'The bridge pays its own transactions\' fees; they are not taken from the payout' }),
        }).nullable(),
    }),
    min_amount: text.meta({ description: 'The least source_token_amount the route takes now' }),
    max_amount: text,
    route: z.looseObject({ kind: text, legs: z.array(z.unknown()) }),
    quoted_at: time,
}).meta({ id: 'BridgeSwapQuote' })
