import { formatUnits } from '../amounts'
import { PoolSwapRequest, PoolTradeError } from '../chains/adapter'
import { PoolConfig } from '../config'
import { LOCK_VAULT } from '../db'
import { EngineContext } from './context'
import { PoolTradeRecord, Swap } from '../store/swaps'
import { update } from './lifecycle'
import { LegQuote, poolAmountOut } from './rates'
import { MINED } from './sender'
import { checkReserves, LACKED_GAS, reservations } from './vault'

/** The pool leg of a route, traded on our AMM from the pool chain's vault: docs/bridge/routes-and-prices.md#pool-legs */

export const NO_ROUTE = 'no liquidity or route for the pair at that moment'

export type PoolTradeProgress =
    | { state: 'none' }
    | { state: 'done'; trade: PoolTradeRecord }
    | { state: 'waiting' }
    | { state: 'failed'; reason: string }

/** The pool leg as locked, when the route has one (rate_detail written by the rate lock). */
export function poolLeg(swap: Swap): (LegQuote & { pool: string; amount_in: string; amount_out: string; token_in: string; token_out: string }) | undefined {
    const legs = (swap.rateDetail as { legs?: LegQuote[] } | null)?.legs ?? []
    const leg = legs.find((l) => l.type === 'pool')
    // A swap whose rate was locked before pool legs were traded carries no amounts: nothing to trade.
    if (!leg?.pool || !leg.amount_in || !leg.amount_out || !leg.token_in || !leg.token_out) return undefined
    return leg as ReturnType<typeof poolLeg>
}

/** The least the trade may deliver: the locked output less the tolerance, rounded up. */
export function minimumOut(lockedOut: bigint, toleranceBps: number): bigint {
    const allowance = (lockedOut * BigInt(toleranceBps)) / 10_000n
    return lockedOut - allowance
}

function side(pool: PoolConfig, symbol: string) {
    const base = pool.base.coin ?? pool.base.symbol
    return symbol === base ? pool.base : pool.quote
}

export async function advancePoolTrade(ctx: EngineContext, swap: Swap): Promise<PoolTradeProgress> {
    const leg = poolLeg(swap)
    if (!leg) return { state: 'none' }
    if (swap.poolTrade) return { state: 'done', trade: swap.poolTrade }
    const pool = ctx.config.pools.find((p) => p.id === leg.pool)
    const adapter = pool && ctx.adapters.get(pool.chain)
    if (!pool || !adapter?.signPoolSwap || !adapter.poolSwapOutput || !adapter.allowance || !adapter.signApprove || !adapter.pairReserves) {
        return { state: 'failed', reason: `${NO_ROUTE} (the pool ${leg.pool} cannot be traded on)` }
    }
    const network = ctx.config.networks[pool.chain]!
    const vault = await adapter.deriveAddress({ kind: 'vault' })
    const tokenIn = side(pool, leg.token_in)
    const tokenOut = side(pool, leg.token_out)
    const amountIn = BigInt(leg.amount_in)
    const lockedOut = BigInt(leg.amount_out)
    const amountOutMin = minimumOut(lockedOut, ctx.config.poolToleranceBps)
    const request: PoolSwapRequest = {
        from: { kind: 'vault' },
        router: pool.router,
        pair: leg.pair!,
        path: [tokenIn.address, tokenOut.address],
        coinIn: !!tokenIn.coin,
        coinOut: !!tokenOut.coin,
        amountIn,
        amountOutMin,
        recipient: vault,
    }

    // A trade already signed is followed to its end: never a second one while it can land.
    const live = await ctx.sender.live(swap.id, 'pool_swap')
    if (live) {
        const state = await ctx.sender.track(adapter, live, network.finality)
        if (state.kind === 'confirmed') {
            if (!state.final) return { state: 'waiting' }
            const amountOut = await adapter.poolSwapOutput(live.hash, request)
            const trade: PoolTradeRecord = {
                pool: pool.id, chain: pool.chain, pair: request.pair, tx_hash: live.hash, block_number: state.blockNumber.toString(),
                token_in: leg.token_in, token_out: leg.token_out, amount_in: amountIn.toString(),
                locked_amount_out: lockedOut.toString(), amount_out_min: amountOutMin.toString(), amount_out: amountOut.toString(),
            }
            if (amountOut < lockedOut) {
                ctx.log.info({ swap: swap.id, pool: pool.id, lockedOut: lockedOut.toString(), amountOut: amountOut.toString() }, 'pool trade delivered less than locked; the vault covers the shortfall')
            }
            const updated = await update(ctx.pool, swap.id, 'vault_locking', { pool_trade: trade })
            return updated ? { state: 'done', trade } : { state: 'waiting' }
        }
        if (state.kind === 'reverted') {
            if (!state.final) return { state: 'waiting' }
            return {
                state: 'failed',
                reason: `${NO_ROUTE} (the ${pool.id} trade ${live.hash} reverted: the pool no longer paid the locked amount less ` +
                    `${ctx.config.poolToleranceBps / 100}%, or the trade's deadline passed)`,
            }
        }
        // Pending or rebroadcast: wait. Dead: the next visit signs a replacement.
        return { state: 'waiting' }
    }

    // The router takes a token only with an allowance; the approval is unlimited and made once per token.
    if (!request.coinIn) {
        const approval = await ctx.sender.live(swap.id, 'pool_approve')
        if (approval && approval.status !== 'confirmed') {
            const state = await ctx.sender.track(adapter, approval, MINED)
            if (state.kind === 'reverted') return { state: 'failed', reason: `${NO_ROUTE} (the vault's approval of the ${pool.id} router reverted)` }
            if (state.kind !== 'confirmed') return { state: 'waiting' }
        }
        if ((await adapter.allowance(tokenIn.address, vault, pool.router)) < amountIn) {
            if (approval) return { state: 'failed', reason: `${NO_ROUTE} (the ${pool.id} router has no allowance on the vault's ${leg.token_in})` }
            const result = await ctx.sender.sendSigned(adapter, swap.id, 'pool_approve', { from: { kind: 'vault' }, to: tokenIn.address, asset: leg.token_in }, (held) =>
                adapter.signApprove!({ from: { kind: 'vault' }, token: tokenIn.address, spender: pool.router }, held)
            )
            if (result.kind === 'rejected') return { state: 'failed', reason: tradeRefused(swap, pool, result.insufficientFunds, result.reason) }
            return { state: 'waiting' }
        }
    }

    // Nothing is signed yet: a refusal read off one node (a lagging one sees the vault before the
    // gather, or the pool before a block) fails the swap only when a second look agrees.
    const refuse = async (reason: string): Promise<PoolTradeProgress> =>
        (await ctx.secondLook.agrees(`pool-trade:${swap.id}`)) ? { state: 'failed', reason } : { state: 'waiting' }
    const release = await ctx.locks.lock(LOCK_VAULT, pool.chain)
    try {
        // The vault's stock of the input, less what reserved payouts and other swaps' trades in flight will take.
        const inAsset = ctx.asset(pool.chain, leg.token_in)
        // The swap's own payout is not reserved yet (it is in vault_locking), and its own trades are left out.
        const [{ reservedOf }, balance] = await Promise.all([reservations(ctx, pool.chain, swap.id), adapter.balance(vault, inAsset)])
        const available = balance - reservedOf(leg.token_in)
        if (available < amountIn) {
            return await refuse(`${NO_ROUTE} (the ${pool.chain} vault holds too little ${leg.token_in} for the ${pool.id} trade)`)
        }
        // Trading only to fail on the payout would be a pointless trade: check that first.
        const credit = pool.chain === swap.targetChain && leg.token_out === swap.targetToken ? amountOutMin : 0n
        const payable = await checkReserves(ctx, swap, credit)
        if (payable.failure) return await refuse(payable.failure)
        const reserves = await adapter.pairReserves(pool.factory, tokenIn.address, tokenOut.address)
        const now = reserves ? poolAmountOut(amountIn, reserves.reserveA, reserves.reserveB) : 0n
        if (now < amountOutMin) {
            return await refuse(`${NO_ROUTE} (the ${pool.id} pool moved after the rate was locked: it pays ${formatUnits(now, tokenOut.decimals)} ${leg.token_out} ` +
                `for the locked ${formatUnits(lockedOut, tokenOut.decimals)}, beyond the ${ctx.config.poolToleranceBps / 100}% the vault covers)`)
        }
        let result
        try {
            result = await ctx.sender.sendSigned(adapter, swap.id, 'pool_swap', { from: { kind: 'vault' }, to: pool.router, asset: leg.token_in }, (held) =>
                adapter.signPoolSwap!(request, held)
            )
        } catch (err) {
            if (err instanceof PoolTradeError) return await refuse(`${NO_ROUTE} (the ${pool.id} trade would revert: ${err.message.slice(0, 200)})`)
            throw err
        }
        if (result.kind === 'rejected') return { state: 'failed', reason: tradeRefused(swap, pool, result.insufficientFunds, result.reason) }
        ctx.log.info({ swap: swap.id, pool: pool.id, tx: result.tx.hash, amountIn: amountIn.toString(), amountOutMin: amountOutMin.toString() }, 'pool trade sent')
        return { state: 'waiting' }
    } finally {
        await release()
    }
}

/** The node refused a trade or its approval: nothing moved, the swap fails and is refunded. */
function tradeRefused(swap: Swap, pool: PoolConfig, insufficientFunds: boolean, reason: string): string {
    if (insufficientFunds) return pool.chain === swap.targetChain ? LACKED_GAS : `${NO_ROUTE} (the ${pool.chain} vault lacked gas for the ${pool.id} trade)`
    return `${NO_ROUTE} (the ${pool.chain} node refused the ${pool.id} trade: ${reason.slice(0, 200)})`
}
