import { Address, encodeFunctionData, Log, maxUint256, parseEventLogs } from 'viem'
import { platformTokenAbi, wNativeAbi } from '../../abi'
import { AmmMathError } from '../../common/amm-math'
import { formatAmount } from './amounts'
import { chargesFees, PricedPath, quoteExactIn, quoteExactOut } from './path-pricing'
import { ChainService, TokenMeta } from './chain'
import { badRequest } from './http'
import { TxStep } from './sender'

/**
 * What the pool and swap routes share: finding a route through our pairs, quoting it with the
 * tokens' transfer fees, approvals for the router, and reading actual amounts off a receipt.
 */

export interface Route extends PricedPath {
    /** Token addresses from input to output. */
    path: Address[]
    pairs: Address[]
    /** Some token on the path charges a transfer fee: the router's fee-supporting methods are needed. */
    feeOnTransfer: boolean
}

/**
 * Candidate paths: the direct pair, else through WNATIVE or STABLE (the chain's two hubs). Only
 * pairs that exist and hold reserves count.
 */
async function candidateRoutes(chain: ChainService, tokenIn: Address, tokenOut: Address): Promise<Route[]> {
    const { wnative, stable } = chain.contracts()
    const paths: Address[][] = [[tokenIn, tokenOut]]
    for (const hub of [wnative, stable]) {
        if (!same(hub, tokenIn) && !same(hub, tokenOut)) paths.push([tokenIn, hub, tokenOut])
    }
    const routes = await Promise.all(paths.map((path) => priceRoute(chain, path)))
    return routes.filter((r): r is Route => r !== undefined)
}

/** The route along exactly this path, with live reserves; undefined when a pair is missing or empty. */
export async function priceRoute(chain: ChainService, path: Address[]): Promise<Route | undefined> {
    const pairs: Address[] = []
    const reserves: [bigint, bigint][] = []
    for (let i = 0; i < path.length - 1; i++) {
        const pair = await chain.pairOf(path[i], path[i + 1])
        if (!pair) return undefined
        const r = await chain.reserves(pair, path[i])
        if (r[0] === 0n || r[1] === 0n) return undefined
        pairs.push(pair)
        reserves.push(r)
    }
    const fees = await Promise.all(path.map((t) => chain.tokenFees(t)))
    const priced = { path, pairs, reserves, fees }
    return { ...priced, feeOnTransfer: chargesFees(priced) }
}

function noRoute(tokenIn: TokenMeta, tokenOut: TokenMeta): Error {
    return badRequest(
        `No pool trades ${label(tokenIn)} for ${label(tokenOut)}: the pair does not exist yet (getPair returns the zero address), ` +
            'has no liquidity, and there is no route through WNATIVE or STABLE; add liquidity first'
    )
}

function quoteFailure(err: unknown): Error {
    if (err instanceof AmmMathError) {
        if (err.reason === 'INSUFFICIENT_LIQUIDITY') {
            return badRequest('INSUFFICIENT_LIQUIDITY: the pool cannot fill a trade of this size; trade less or add liquidity first')
        }
        return badRequest(`${err.reason}: the amount is too small to trade; send a larger amount`)
    }
    return err as Error
}

/** The route paying the most for amountIn, and that payout. */
export async function bestExactIn(chain: ChainService, tokenIn: TokenMeta, tokenOut: TokenMeta, amountIn: bigint) {
    const routes = await candidateRoutes(chain, tokenIn.address, tokenOut.address)
    if (routes.length === 0) throw noRoute(tokenIn, tokenOut)
    let best: { route: Route; amountOut: bigint } | undefined
    let failure: unknown
    for (const route of routes) {
        try {
            const amountOut = quoteExactIn(amountIn, route)
            if (!best || amountOut > best.amountOut) best = { route, amountOut }
        } catch (err) {
            failure = err
        }
    }
    if (!best) throw quoteFailure(failure)
    return best
}

/** The route charging the least for amountOut, and that charge. */
export async function bestExactOut(chain: ChainService, tokenIn: TokenMeta, tokenOut: TokenMeta, amountOut: bigint) {
    const routes = await candidateRoutes(chain, tokenIn.address, tokenOut.address)
    if (routes.length === 0) throw noRoute(tokenIn, tokenOut)
    let best: { route: Route; amountIn: bigint } | undefined
    let failure: unknown
    for (const route of routes) {
        try {
            const amountIn = quoteExactOut(amountOut, route)
            if (!best || amountIn < best.amountIn) best = { route, amountIn }
        } catch (err) {
            failure = err
        }
    }
    if (!best) throw quoteFailure(failure)
    return best
}

/**
 * The approval the router needs to take `amount` of a token from the wallet, if any. The router
 * is approved for the maximum once: exact approvals would race between concurrent operations of
 * one wallet (each approve overwrites the last), and our router is the only spender ever approved.
 */
export async function approvalStep(chain: ChainService, token: Address, owner: Address, amount: bigint): Promise<TxStep[]> {
    const { router } = chain.contracts()
    const allowance = await chain.allowance(token, owner, router)
    if (allowance >= amount) return []
    return [{ to: token, data: encodeFunctionData({ abi: platformTokenAbi, functionName: 'approve', args: [router, maxUint256] }) }]
}

/** A wallet holds at least `amount` of a token, else a 400 saying how much it holds. */
export async function requireBalance(chain: ChainService, token: TokenMeta, owner: Address, amount: bigint, field: string): Promise<void> {
    const balance = await chain.balanceOf(token.address, owner)
    if (balance < amount) {
        throw badRequest(`insufficient ${label(token)} balance: the wallet holds ${formatAmount(balance, token.decimals)}, less than ${field} (${formatAmount(amount, token.decimals)})`)
    }
}

export async function requireNativeBalance(chain: ChainService, owner: Address, amount: bigint, field: string): Promise<void> {
    const balance = await chain.nativeBalance(owner)
    if (balance < amount) {
        throw badRequest(`insufficient funds: the wallet holds ${formatAmount(balance, 18)} NATIVE, less than ${field} (${formatAmount(amount, 18)})`)
    }
}

const EVENTS_ABI = [...platformTokenAbi.filter((i) => i.type === 'event' && i.name === 'Transfer'), ...wNativeAbi.filter((i) => i.type === 'event' && (i.name === 'Deposit' || i.name === 'Withdrawal'))]

/** Sum of a token's Transfer logs in a receipt, filtered by sender and/or receiver. */
export function transferred(logs: Log[], token: Address, filter: { from?: Address; to?: Address }): bigint {
    let total = 0n
    for (const log of parseEventLogs({ abi: EVENTS_ABI, logs, eventName: 'Transfer', strict: false })) {
        if (!same(log.address, token)) continue
        const args = log.args as { from?: Address; to?: Address; value?: bigint }
        if (filter.from && !same(args.from, filter.from)) continue
        if (filter.to && !same(args.to, filter.to)) continue
        total += args.value ?? 0n
    }
    return total
}

/** Native coin the router wrapped (Deposit) or unwrapped (Withdrawal) in a receipt: what it took from or paid to the wallet. */
export function wrapped(logs: Log[], wnative: Address, router: Address, kind: 'Deposit' | 'Withdrawal'): bigint {
    let total = 0n
    for (const log of parseEventLogs({ abi: EVENTS_ABI, logs, eventName: kind, strict: false })) {
        if (!same(log.address, wnative)) continue
        const args = log.args as { dst?: Address; src?: Address; wad?: bigint }
        if (same(kind === 'Deposit' ? args.dst : args.src, router)) total += args.wad ?? 0n
    }
    return total
}

export function same(a: string | undefined, b: string | undefined): boolean {
    return a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase()
}

export function label(token: TokenMeta): string {
    return token.symbol || token.address
}
