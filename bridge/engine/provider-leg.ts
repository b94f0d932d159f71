import { formatUnits } from '../amounts'
import { DepositSeen } from '../chains/adapter'
import { blockRanges } from '../chains/scan'
import { Asset } from '../config'
import { inTransaction } from '../db'
import { ProviderAmountOutOfRangeError, ProviderRequestError, ProviderUncertainError } from '../providers/errors'
import { ProviderExchange } from '../providers/provider'
import { ChainName } from '../registry'
import { EngineContext } from './context'
import { Swap } from '../store/swaps'
import { transition, writeEvent } from './lifecycle'
import { isProviderStatus, SwapStatus } from './statuses'
import { LegQuote } from './rates'
import { MINED } from './sender'

/** The external provider's leg of a route, run between gathered and vault_locking: docs/bridge/routes-and-prices.md#the-provider-leg */

export const PROVIDER_UNCERTAIN = 'the external swap provider did not confirm the exchange; an operator must check it before anything is sent'
export const PROVIDER_FUNDS_HELD = 'the external swap provider holds the deposit; an operator must claim its refund'

/** fail: end the swap (as it stands after the leg's last move, `swap`) with a reason and a refund policy. */
export type ProviderStepResult = 'continue' | 'wait' | { fail: string; refund: 'as_usual' | 'held'; swap?: Swap }

interface LegRow {
    swap_id: string
    side: 'source' | 'target'
    sell_chain: ChainName
    sell_token: string
    buy_chain: ChainName
    buy_token: string
    amount_in: string
    expected_out: string
    state: 'creating' | 'created' | 'uncertain' | 'settled' | 'ended'
    exchange_id: string | null
    provider_status: string | null
    deposit_address: string | null
    payout_address: string
    refund_address: string
    amount_out: string | null
    tx_out: string | null
    scan_from: string
}

/** The provider leg as locked, when the route has one (rate_detail written by the rate lock). */
export function lockedProviderLeg(swap: Swap): (LegQuote & { token_in: string; token_out: string; amount_in: string; amount_out: string }) | undefined {
    const legs = (swap.rateDetail as { legs?: LegQuote[] } | null)?.legs ?? []
    return legs.find((l) => l.type === 'provider') as ReturnType<typeof lockedProviderLeg>
}

async function loadLeg(ctx: EngineContext, swapId: string): Promise<LegRow | undefined> {
    const { rows } = await ctx.pool.query('SELECT * FROM bridge_provider_leg WHERE swap_id = $1', [swapId])
    return rows[0]
}

function assetOf(ctx: EngineContext, key: string): Asset {
    const [chain, symbol] = key.split(':') as [ChainName, string]
    return ctx.asset(chain, symbol)
}

/** Marks the leg held for an operator, once, with the event that says why. */
async function hold(ctx: EngineContext, swap: Swap, reason: string, state?: 'uncertain'): Promise<void> {
    await inTransaction(ctx.pool, async (client) => {
        const { rowCount } = await client.query(
            `UPDATE bridge_provider_leg SET error = $2, state = COALESCE($3, state), updated_at = now() WHERE swap_id = $1 AND error IS DISTINCT FROM $2`,
            [swap.id, reason, state ?? null]
        )
        if (rowCount) await writeEvent(client, swap, { event: 'provider_leg_held', data: { reason, operator_action_required: true } })
    })
    ctx.log.error({ swap: swap.id, reason }, 'provider leg held for an operator')
}

/** gathered, on a provider route: create the exchange (once) and move into its first status. */
export async function startProviderLeg(ctx: EngineContext, swap: Swap): Promise<ProviderStepResult> {
    const provider = ctx.provider
    const locked = lockedProviderLeg(swap)
    if (!provider || !locked) return { fail: 'no liquidity or route for the pair at that moment (the external swap provider is not configured)', refund: 'as_usual' }
    let leg = await loadLeg(ctx, swap.id)
    if (leg?.state === 'uncertain') return 'wait'
    if (leg?.state === 'creating') {
        // Written by a run that never learnt the create's outcome: the exchange may exist.
        await hold(ctx, swap, PROVIDER_UNCERTAIN, 'uncertain')
        return 'wait'
    }
    if (!leg) {
        const [sell, buy] = [assetOf(ctx, locked.token_in), assetOf(ctx, locked.token_out)]
        const [payoutAddress, refundAddress, buyHead] = await Promise.all([
            ctx.adapter(buy.chain).deriveAddress({ kind: 'vault' }),
            ctx.adapter(sell.chain).deriveAddress({ kind: 'vault' }),
            ctx.adapter(buy.chain).head(),
        ])
        // The side the provider serves: it sells a provider-served asset for us (BTC → …) or buys one (… → BTC).
        const side = ctx.config.provider.assets.has(`${sell.chain}:${sell.symbol}`) ? 'source' : 'target'
        const { rows } = await ctx.pool.query(
            `INSERT INTO bridge_provider_leg (swap_id, provider, side, sell_chain, sell_token, buy_chain, buy_token, amount_in, expected_out,
                state, payout_address, refund_address, scan_from)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'creating', $10, $11, $12) ON CONFLICT (swap_id) DO NOTHING RETURNING *`,
            [swap.id, provider.name, side, sell.chain, sell.symbol, buy.chain, buy.symbol, locked.amount_in, locked.amount_out,
                payoutAddress, refundAddress, buyHead.number.toString()]
        )
        if (!rows[0]) return 'wait'
        leg = rows[0] as LegRow
        let exchange: ProviderExchange
        try {
            exchange = await provider.createExchange({
                from: { chain: sell.chain, symbol: sell.symbol }, to: { chain: buy.chain, symbol: buy.symbol },
                amountIn: BigInt(leg.amount_in), payoutAddress, refundAddress,
            })
        } catch (err) {
            if (err instanceof ProviderUncertainError && err.mayHaveCreated) {
                await hold(ctx, swap, `${PROVIDER_UNCERTAIN}: ${err.message}`, 'uncertain')
                return 'wait'
            }
            // Known not to have created anything: the row goes, and the next pass may try again.
            await ctx.pool.query(`DELETE FROM bridge_provider_leg WHERE swap_id = $1 AND state = 'creating'`, [swap.id])
            if (err instanceof ProviderAmountOutOfRangeError || err instanceof ProviderRequestError) {
                return { fail: `the external swap provider refused the exchange: ${err.message}`, refund: 'as_usual' }
            }
            throw err
        }
        await ctx.pool.query(
            `UPDATE bridge_provider_leg SET state = 'created', exchange_id = $2, provider_status = $3, deposit_address = $4, deposit_extra_id = $5, updated_at = now()
             WHERE swap_id = $1`,
            [swap.id, exchange.id, exchange.status.raw, exchange.depositAddress, exchange.depositExtraId ?? null]
        )
        leg = (await loadLeg(ctx, swap.id))!
    }
    const status = ourStatus(leg.provider_status ?? 'waiting') ?? 'simpleswap_waiting'
    const sell = ctx.asset(leg.sell_chain, leg.sell_token)
    const moved = await transition(ctx.pool, swap.id, 'gathered', status, {
        data: {
            exchange_id: leg.exchange_id, provider_status: leg.provider_status, side: leg.side,
            sell: `${leg.sell_chain}:${leg.sell_token}`, buy: `${leg.buy_chain}:${leg.buy_token}`,
            amount_in: formatUnits(BigInt(leg.amount_in), sell.decimals),
        },
    })
    return moved ? 'continue' : 'wait'
}

function ourStatus(raw: string): SwapStatus | undefined {
    const ours = `simpleswap_${raw.trim().toLowerCase()}`
    return isProviderStatus(ours) ? ours : undefined
}

/** simpleswap_*: send the vault's deposit to the exchange, follow the exchange, act on its status. */
export async function followProviderLeg(ctx: EngineContext, swap: Swap): Promise<ProviderStepResult> {
    const provider = ctx.provider
    const leg = await loadLeg(ctx, swap.id)
    if (!leg || !provider) throw new Error(`swap ${swap.id} is in ${swap.status} without a provider leg or provider`)
    if (leg.state === 'uncertain' || leg.state === 'ended') return 'wait'
    const sell = ctx.asset(leg.sell_chain, leg.sell_token)
    const buy = ctx.asset(leg.buy_chain, leg.buy_token)
    const sellAdapter = ctx.adapter(sell.chain)

    // Our deposit to the exchange: signed once, stored, followed until mined.
    let sent = await ctx.sender.live(swap.id, 'provider_deposit')
    if (!sent && leg.state === 'created' && (leg.provider_status ?? 'waiting').toLowerCase() === 'waiting') {
        const result = await ctx.sender.send(sellAdapter, swap.id, 'provider_deposit', {
            from: { kind: 'vault' }, to: leg.deposit_address!, asset: sell, amount: BigInt(leg.amount_in),
        })
        if (result.kind === 'rejected') {
            return { fail: `the ${sell.chain} vault could not send to the external swap provider: ${result.reason.slice(0, 200)}`, refund: 'as_usual' }
        }
        sent = result.tx
    }
    if (sent && (sent.status === 'signed' || sent.status === 'broadcast')) await ctx.sender.track(sellAdapter, sent, MINED)

    const exchange = await provider.getExchange(leg.exchange_id!)
    await ctx.pool.query(
        `UPDATE bridge_provider_leg SET provider_status = $2, tx_in = $3, tx_out = $4, amount_out = COALESCE($5, amount_out), updated_at = now() WHERE swap_id = $1`,
        [swap.id, exchange.status.raw, exchange.txIn ?? null, exchange.txOut ?? null, exchange.status.raw.toLowerCase() === 'finished' ? exchange.amountOut?.toString() ?? null : null]
    )
    const status = exchange.status
    if (!status.known) {
        await hold(ctx, swap, `the external swap provider reports a status the bridge does not know: ${status.raw}`)
        return 'wait'
    }
    let current = swap
    if (status.ours !== swap.status) {
        const moved = await transition(ctx.pool, swap.id, swap.status, status.ours, {
            txHash: exchange.txOut ?? exchange.txIn ?? null,
            data: { exchange_id: exchange.id, provider_status: status.raw, tx_in: exchange.txIn ?? null, tx_out: exchange.txOut ?? null },
        })
        if (!moved) return 'wait'
        current = moved
    }
    switch (status.action) {
        case 'wait': return 'wait'
        case 'wait_and_alert':
            await hold(ctx, current, `the external swap provider holds the exchange: ${status.meaning}`)
            return 'wait'
        case 'fail_and_refund':
            await endLeg(ctx, swap.id)
            return { fail: status.failReason!, refund: 'as_usual', swap: current }
        case 'fail': {
            await endLeg(ctx, swap.id)
            // Nothing of ours reached the provider (no send, or one that provably cannot land): the vault still holds it.
            const reached = (await ctx.sender.live(swap.id, 'provider_deposit')) !== undefined
            return { fail: status.failReason!, refund: reached ? 'held' : 'as_usual', swap: current }
        }
        case 'continue':
            return settle(ctx, current, leg, buy, exchange)
    }
}

async function endLeg(ctx: EngineContext, swapId: string): Promise<void> {
    await ctx.pool.query(`UPDATE bridge_provider_leg SET state = 'ended', updated_at = now() WHERE swap_id = $1`, [swapId])
}

/**
 * finished: find the provider's payout (tx_out) paying our vault on the buy chain, wait until it is
 * final there, then continue as a vault route with the payout adjusted to what arrived.
 */
async function settle(ctx: EngineContext, swap: Swap, leg: LegRow, buy: Asset, exchange: ProviderExchange): Promise<ProviderStepResult> {
    if (!exchange.txOut) return 'wait'
    const adapter = ctx.adapter(buy.chain)
    // A chain that can read the payout by its hash does; the others' scans see it even after the vault spent it.
    const found = adapter.transferTo
        ? await adapter.transferTo(exchange.txOut, leg.payout_address, buy)
        : await scanForPayout(ctx, swap.id, leg, buy, exchange.txOut)
    if (!found) return 'wait'
    const check = await adapter.checkDeposit({ txHash: found.txHash, blockNumber: found.blockNumber, blockHash: found.blockHash, amount: found.amount }, ctx.config.networks[buy.chain]!.finality)
    if (check.state !== 'final') return 'wait'

    const expected = BigInt(leg.expected_out)
    const locked = swap.lockedTargetAmount!
    const floor = expected - (expected * BigInt(ctx.config.poolToleranceBps)) / 10_000n
    // Below the tolerance, the locked rate applies to what arrived; otherwise the vault covers the difference.
    const payout = found.amount >= floor ? locked : (locked * found.amount) / expected
    await ctx.pool.query(
        `UPDATE bridge_provider_leg SET state = 'settled', amount_out = $2, payout_block = $3, payout_block_hash = $4, updated_at = now() WHERE swap_id = $1`,
        [swap.id, found.amount.toString(), found.blockNumber.toString(), found.blockHash]
    )
    const target = ctx.asset(swap.targetChain, swap.targetToken)
    const moved = await transition(ctx.pool, swap.id, swap.status, 'vault_locking', {
        set: payout === locked ? {} : { locked_target_amount: payout },
        txHash: found.txHash,
        data: {
            target_chain: swap.targetChain, target_token: swap.targetToken, exchange_id: exchange.id,
            provider_amount_out: formatUnits(found.amount, buy.decimals), provider_expected_out: formatUnits(expected, buy.decimals),
            ...(payout === locked ? {} : { payout_adjusted_to: formatUnits(payout, target.decimals) }),
        },
    })
    return moved ? 'continue' : 'wait'
}

/** The provider's payout among the transfers into our vault since the leg began; the scan's progress is kept. */
async function scanForPayout(ctx: EngineContext, swapId: string, leg: LegRow, buy: Asset, txOut: string): Promise<DepositSeen | undefined> {
    const adapter = ctx.adapter(buy.chain)
    const head = await adapter.head()
    const watch = { swapId, address: leg.payout_address, asset: buy, fromBlock: BigInt(leg.scan_from) }
    for (const [from, to] of blockRanges(watch.fromBlock, head.number, adapter.maxScanBlocks)) {
        const found = (await adapter.scanDeposits([watch], from, to)).find((d) => d.txHash?.toLowerCase() === txOut.toLowerCase())
        if (found) return found
        // Scanned: a restart resumes here (a few blocks back, in case of a reorg).
        const resume = to > 5n ? to - 5n : 0n
        if (resume > watch.fromBlock) await ctx.pool.query('UPDATE bridge_provider_leg SET scan_from = $2 WHERE swap_id = $1', [swapId, resume.toString()])
    }
    return undefined
}

/** Whether a swap's route runs a provider leg (it then leaves gathered through the provider's statuses). */
export function hasProviderLeg(swap: Swap): boolean {
    return lockedProviderLeg(swap) !== undefined
}
