import { Router } from 'express'
import { Address, encodeFunctionData, getAddress, Log, parseEventLogs, zeroAddress } from 'viem'
import { z } from 'zod'
import { ammPairAbi, ammRouterAbi } from '../../../abi'
import { amountFields, fraction, parseAmount, parsePositiveAmount } from '../amounts'
import { approvalStep, requireBalance, requireNativeBalance, same, transferred } from '../amm'
import { TokenMeta } from '../chain'
import { badRequest, notFound, parseInput, sendData } from '../http'
import { PlatformServices } from '../services'
import { address, amount, deadline, NATIVE, optionalUserId, TokenRef, tokenRef, userId } from '../validation'
import { walletsOf } from '../wallets'

/**
 * /api/pools: liquidity in our AMM's pairs (spec 4.2 Pools). Writes approve the router for the
 * caller when needed, pass a deadline and the caller's _min floors to the router, and report
 * the amounts the pair's Mint/Burn events recorded. Reads answer { result: [pair, token1, token2] }
 * (lists: an array of such triples), with live reserves and LP balances from the chain; which
 * pools a wallet is in comes from the indexer's LP token balances.
 */
export function poolRoutes(s: PlatformServices): Router {
    const router = Router()

    router.post('/api/pools/add_liquidity', async (req, res) => {
        const b = parseInput(z.object({
            token1: tokenRef, token2: tokenRef, amount1_desired: amount, amount2_desired: amount,
            amount1_min: amount, amount2_min: amount, address, deadline, user_id: optionalUserId,
        }), req.body)
        notNative(b.token1, 'token1', 'use /api/pools/add_liquidity_native')
        notNative(b.token2, 'token2', 'use /api/pools/add_liquidity_native')
        const auth = await s.auth.wallet(req, b.address, b.user_id)
        const { router: routerAddress } = await s.chain.ready()
        const [t1, t2] = await distinctTokens(s, b.token1, b.token2)
        const desired1 = parsePositiveAmount(b.amount1_desired, t1.decimals, 'amount1_desired')
        const desired2 = parsePositiveAmount(b.amount2_desired, t2.decimals, 'amount2_desired')
        const min1 = floor(b.amount1_min, desired1, t1, 'amount1')
        const min2 = floor(b.amount2_min, desired2, t2, 'amount2')
        await requireBalance(s.chain, t1, b.address, desired1, 'amount1_desired')
        await requireBalance(s.chain, t2, b.address, desired2, 'amount2_desired')
        const dl = await s.chain.deadline(s.env.PLATFORM_DEADLINE_SECONDS, b.deadline)
        const steps = [
            ...(await approvalStep(s.chain, t1.address, b.address, desired1)),
            ...(await approvalStep(s.chain, t2.address, b.address, desired2)),
            { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'addLiquidity', args: [t1.address, t2.address, desired1, desired2, min1, min2, b.address, dl] }) },
        ]
        const { hashes, receipt } = await s.sender.execute(s.auth.account(auth), steps)
        const pair = (await s.chain.pairOf(t1.address, t2.address))!
        const [a1, a2] = pairAmounts(receipt.logs, pair, 'Mint', t1.address, t2.address)
        sendData(res, {
            hash: receipt.transactionHash,
            approval_hashes: hashes.slice(0, -1),
            pair,
            token1: t1.address,
            token2: t2.address,
            ...amountFields('amount1', a1, t1.decimals),
            ...amountFields('amount2', a2, t2.decimals),
            ...amountFields('liquidity', transferred(receipt.logs, pair, { from: zeroAddress, to: b.address }), 18),
        })
    })

    router.post('/api/pools/add_liquidity_native', async (req, res) => {
        const b = parseInput(z.object({
            token: tokenRef, amount_token_desired: amount, amount_native_desired: amount,
            amount_token_min: amount, amount_native_min: amount, address, deadline, user_id: optionalUserId,
        }), req.body)
        notNative(b.token, 'token', "give the pool's other token (the native side is amount_native_*)")
        const auth = await s.auth.wallet(req, b.address, b.user_id)
        const { router: routerAddress, wnative } = await s.chain.ready()
        const [token] = await distinctTokens(s, b.token, wnative)
        const desiredToken = parsePositiveAmount(b.amount_token_desired, token.decimals, 'amount_token_desired')
        const desiredNative = parsePositiveAmount(b.amount_native_desired, 18, 'amount_native_desired')
        const minToken = floor(b.amount_token_min, desiredToken, token, 'amount_token')
        const minNative = floor(b.amount_native_min, desiredNative, NATIVE_META, 'amount_native')
        await requireBalance(s.chain, token, b.address, desiredToken, 'amount_token_desired')
        await requireNativeBalance(s.chain, b.address, desiredNative, 'amount_native_desired')
        const dl = await s.chain.deadline(s.env.PLATFORM_DEADLINE_SECONDS, b.deadline)
        const steps = [
            ...(await approvalStep(s.chain, token.address, b.address, desiredToken)),
            {
                to: routerAddress,
                value: desiredNative,
                data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'addLiquidityETH', args: [token.address, desiredToken, minToken, minNative, b.address, dl] }),
            },
        ]
        const { hashes, receipt } = await s.sender.execute(s.auth.account(auth), steps)
        const pair = (await s.chain.pairOf(token.address, wnative))!
        const [aToken, aNative] = pairAmounts(receipt.logs, pair, 'Mint', token.address, wnative)
        sendData(res, {
            hash: receipt.transactionHash,
            approval_hashes: hashes.slice(0, -1),
            pair,
            token: token.address,
            ...amountFields('amount_token', aToken, token.decimals),
            ...amountFields('amount_native', aNative, 18),
            ...amountFields('liquidity', transferred(receipt.logs, pair, { from: zeroAddress, to: b.address }), 18),
        })
    })

    router.post('/api/pools/remove_liquidity', async (req, res) => {
        const b = parseInput(z.object({
            token1: tokenRef, token2: tokenRef, liquidity: amount, amount1_min: amount, amount2_min: amount,
            address_to: address, deadline, user_id: optionalUserId,
        }), req.body)
        notNative(b.token1, 'token1', 'use /api/pools/remove_liquidity_native')
        notNative(b.token2, 'token2', 'use /api/pools/remove_liquidity_native')
        const auth = await s.auth.wallet(req, b.address_to, b.user_id)
        const { router: routerAddress } = await s.chain.ready()
        const [t1, t2] = await distinctTokens(s, b.token1, b.token2)
        const pair = await existingPair(s, t1, t2)
        const liquidity = parsePositiveAmount(b.liquidity, 18, 'liquidity')
        const min1 = parseAmount(b.amount1_min, t1.decimals, 'amount1_min')
        const min2 = parseAmount(b.amount2_min, t2.decimals, 'amount2_min')
        await requireBalance(s.chain, lpMeta(pair), b.address_to, liquidity, 'liquidity')
        const dl = await s.chain.deadline(s.env.PLATFORM_DEADLINE_SECONDS, b.deadline)
        const steps = [
            ...(await approvalStep(s.chain, pair, b.address_to, liquidity)),
            { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'removeLiquidity', args: [t1.address, t2.address, liquidity, min1, min2, b.address_to, dl] }) },
        ]
        const { hashes, receipt } = await s.sender.execute(s.auth.account(auth), steps)
        const [a1, a2] = pairAmounts(receipt.logs, pair, 'Burn', t1.address, t2.address)
        sendData(res, {
            hash: receipt.transactionHash,
            approval_hashes: hashes.slice(0, -1),
            pair,
            token1: t1.address,
            token2: t2.address,
            ...amountFields('liquidity', liquidity, 18),
            ...amountFields('amount1', a1, t1.decimals),
            ...amountFields('amount2', a2, t2.decimals),
        })
    })

    // Field names mirror add_liquidity_native: token, liquidity, amount_token_min, amount_native_min, address_to.
    router.post('/api/pools/remove_liquidity_native', async (req, res) => {
        const b = parseInput(z.object({
            token: tokenRef, liquidity: amount, amount_token_min: amount, amount_native_min: amount,
            address_to: address, deadline, user_id: optionalUserId,
        }), req.body)
        notNative(b.token, 'token', "give the pool's other token")
        const auth = await s.auth.wallet(req, b.address_to, b.user_id)
        const { router: routerAddress, wnative } = await s.chain.ready()
        const [token] = await distinctTokens(s, b.token, wnative)
        const pair = await existingPair(s, token, { ...NATIVE_META, address: wnative })
        const liquidity = parsePositiveAmount(b.liquidity, 18, 'liquidity')
        const minToken = parseAmount(b.amount_token_min, token.decimals, 'amount_token_min')
        const minNative = parseAmount(b.amount_native_min, 18, 'amount_native_min')
        await requireBalance(s.chain, lpMeta(pair), b.address_to, liquidity, 'liquidity')
        const fees = await s.chain.tokenFees(token.address)
        // A fee-charging token arrives at the router short of what the pair sent: only the supporting method can pass it on.
        const method = fees.buying > 0 || fees.selling > 0 ? 'removeLiquidityETHSupportingFeeOnTransferTokens' : 'removeLiquidityETH'
        const dl = await s.chain.deadline(s.env.PLATFORM_DEADLINE_SECONDS, b.deadline)
        const steps = [
            ...(await approvalStep(s.chain, pair, b.address_to, liquidity)),
            { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: method as 'removeLiquidityETH', args: [token.address, liquidity, minToken, minNative, b.address_to, dl] }) },
        ]
        const { hashes, receipt } = await s.sender.execute(s.auth.account(auth), steps)
        const [aToken, aNative] = pairAmounts(receipt.logs, pair, 'Burn', token.address, wnative)
        sendData(res, {
            hash: receipt.transactionHash,
            approval_hashes: hashes.slice(0, -1),
            pair,
            token: token.address,
            method,
            ...amountFields('liquidity', liquidity, 18),
            ...amountFields('amount_token', aToken, token.decimals),
            ...amountFields('amount_native', aNative, 18),
        })
    })

    // ---- reads ----

    router.get('/api/pools/list', async (req, res) => {
        const q = parseInput(z.object({ address, user_id: optionalUserId }), req.query)
        await s.auth.wallet(req, q.address, q.user_id)
        sendData(res, { result: await positions(s, [q.address]) })
    })

    router.get('/api/pools/list_by_user', async (req, res) => {
        const q = parseInput(z.object({ user_id: userId }), req.query)
        await s.auth.user(req, q.user_id)
        sendData(res, { result: await positions(s, await walletsOf(s.pool, q.user_id)) })
    })

    router.get('/api/pools/list_by_user_and_address', async (req, res) => {
        const q = parseInput(z.object({ user_id: userId, user_addr: address }), req.query)
        await s.auth.wallet(req, q.user_addr, q.user_id)
        sendData(res, { result: await positions(s, [q.user_addr]) })
    })

    router.get('/api/pools/info_by_address', async (req, res) => {
        const q = parseInput(z.object({ user_id: userId, address }), req.query)
        await s.auth.user(req, q.user_id)
        await s.chain.ready()
        sendData(res, { result: await poolView(s, q.address, await walletsOf(s.pool, q.user_id)) })
    })

    router.get('/api/pools/info_by_tokens', async (req, res) => {
        const q = parseInput(z.object({ user_id: userId, token1: tokenRef, token2: tokenRef }), req.query)
        await s.auth.user(req, q.user_id)
        const { wnative } = await s.chain.ready()
        // Pools hold WNATIVE, so NATIVE here means the native coin's pool side.
        const a = q.token1 === NATIVE ? wnative : q.token1
        const b = q.token2 === NATIVE ? wnative : q.token2
        const [t1, t2] = await distinctTokens(s, a, b)
        const pair = await s.chain.pairOf(t1.address, t2.address)
        if (!pair) throw notFound(`The pair of ${t1.symbol || t1.address} and ${t2.symbol || t2.address} does not exist (getPair returns the zero address); add liquidity to create it`)
        sendData(res, { result: await poolView(s, pair, await walletsOf(s.pool, q.user_id), [t1.address, t2.address]) })
    })

    return router
}

const NATIVE_META: TokenMeta = { address: zeroAddress, name: NATIVE, symbol: NATIVE, decimals: 18 }
const lpMeta = (pair: Address): TokenMeta => ({ address: pair, name: 'LP', symbol: 'LP', decimals: 18 })

function notNative(token: TokenRef, field: string, hint: string): asserts token is Address {
    if (token === NATIVE) throw badRequest(`${field} is the native coin, which this route does not take; ${hint}`)
}

async function distinctTokens(s: PlatformServices, a: Address, b: Address): Promise<[TokenMeta, TokenMeta]> {
    if (same(a, b)) throw badRequest('The two tokens are the same; a pool needs two different tokens')
    return Promise.all([s.chain.tokenMeta(a), s.chain.tokenMeta(b)])
}

async function existingPair(s: PlatformServices, a: TokenMeta, b: TokenMeta): Promise<Address> {
    const pair = await s.chain.pairOf(a.address, b.address)
    if (!pair) throw badRequest(`The pair of ${a.symbol || a.address} and ${b.symbol || b.address} does not exist (getPair returns the zero address); there is no liquidity to remove`)
    return pair
}

/** A _min floor in the token's units; above its _desired amount it could never be met. */
function floor(value: string | number, desired: bigint, token: TokenMeta, name: string): bigint {
    const min = parseAmount(value, token.decimals, `${name}_min`)
    if (min > desired) throw badRequest(`${name}_min is above ${name}_desired; the router could never add that much`)
    return min
}

/** The pair's Mint or Burn amounts, in the order (tokenA, tokenB). */
function pairAmounts(logs: Log[], pair: Address, event: 'Mint' | 'Burn', tokenA: Address, tokenB: Address): [bigint, bigint] {
    const found = parseEventLogs({ abi: ammPairAbi, logs, eventName: event }).find((l) => same(l.address, pair))
    if (!found) return [0n, 0n]
    const { amount0, amount1 } = found.args as { amount0: bigint; amount1: bigint }
    // Pairs order their tokens by address.
    return BigInt(tokenA) < BigInt(tokenB) ? [amount0, amount1] : [amount1, amount0]
}

/** Pools in which any of the holders has LP tokens (per the indexer), each as a [pair, token0, token1] view. */
async function positions(s: PlatformServices, holders: Address[]) {
    if (holders.length === 0) return []
    await s.chain.ready()
    const { rows } = await s.pool.query(
        `SELECT DISTINCT p.id FROM pair p JOIN token_balance b ON b.token = p.id
         WHERE b.holder = ANY($1) AND b.value > 0 ORDER BY p.id`,
        [holders.map((h) => h.toLowerCase())]
    )
    const views = await Promise.all(rows.map((r) => poolView(s, getAddress(r.id), holders)))
    // The indexer can trail the chain by a block: keep what the chain says is still held.
    return views.filter(([pair]) => BigInt(pair.lp_balance_raw) > 0n)
}

/**
 * [pair, token1, token2] of one pool. The pair element: address, token0/token1 (the pair's own
 * order), reserves, LP total supply, the holders' LP balance, their share of the pool, and per
 * wallet balances. Token elements: address, name, symbol, decimals, the pool's reserve of it and
 * the holders' claim on that reserve. Tokens come in `order` when given, else the pair's order.
 */
async function poolView(s: PlatformServices, pair: Address, holders: Address[], order?: [Address, Address]) {
    const read = <T>(fn: () => Promise<T>) => s.chain.read(fn)
    const code = await read(() => s.chain.client.getCode({ address: pair }))
    if (!code || code === '0x') throw notFound(`There is no pool at ${pair}`)
    const [token0, token1] = await Promise.all([
        read(() => s.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })),
        read(() => s.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token1' })),
    ]).catch(() => {
        throw notFound(`${pair} is not a pool of this AMM`)
    })
    const listed = await s.chain.pairOf(token0, token1)
    if (!listed || !same(listed, pair)) throw notFound(`${pair} is not a pool of this AMM`)
    const [[reserve0, reserve1], totalSupply, meta0, meta1, balances] = await Promise.all([
        s.chain.reserves(pair, token0),
        read(() => s.chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'totalSupply' })),
        s.chain.tokenMeta(token0),
        s.chain.tokenMeta(token1),
        Promise.all(holders.map((h) => s.chain.balanceOf(pair, h))),
    ])
    const held = balances.reduce((a, b) => a + b, 0n)
    const claim = (reserve: bigint) => (totalSupply === 0n ? 0n : (reserve * held) / totalSupply)
    const tokenView = (meta: TokenMeta, reserve: bigint) => ({
        address: meta.address,
        name: meta.name,
        symbol: meta.symbol,
        decimals: meta.decimals,
        ...amountFields('reserve', reserve, meta.decimals),
        ...amountFields('user_amount', claim(reserve), meta.decimals),
    })
    const pairView = {
        address: getAddress(pair),
        token0: getAddress(token0),
        token1: getAddress(token1),
        ...amountFields('reserve0', reserve0, meta0.decimals),
        ...amountFields('reserve1', reserve1, meta1.decimals),
        ...amountFields('total_supply', totalSupply, 18),
        ...amountFields('lp_balance', held, 18),
        share: fraction(held, totalSupply),
        wallets: holders
            .map((h, i) => ({ address: h, ...amountFields('lp_balance', balances[i], 18) }))
            .filter((w) => BigInt(w.lp_balance_raw) > 0n),
    }
    const views = [tokenView(meta0, reserve0), tokenView(meta1, reserve1)] as const
    const swapped = order !== undefined && !same(order[0], token0)
    return [pairView, swapped ? views[1] : views[0], swapped ? views[0] : views[1]] as const
}
