import { Request, Response } from 'express'
import { Address, encodeFunctionData, getAddress, Log, parseEventLogs, zeroAddress } from 'viem'
import { z } from 'zod'
import { ammPairAbi, ammRouterAbi } from '../../../abi'
import { withIdempotencyKey } from '../../../common/service/idempotency'
import { ApiDoc, DocumentedRouter, Operation } from '../../../common/service/api-doc'
import { pairsHeldBy } from '../../chain/queries/defi'
import { amountFields, fraction, parseAmount, parsePositiveAmount } from '../amounts'
import {
    amountSchema, CHAIN_ANSWERS, checksummedAddress, inData, PASSWORD, PASSWORD_ANSWERS, SEND_ANSWERS, TOKEN_ANSWERS, txHash,
} from '../api-doc'
import { approvalStep, requireBalance, requireNativeBalance, same, transferred } from '../amm'
import { TokenMeta } from '../chain'
import { badRequest, notFound, parseInput, sendData } from '../http'
import { ExecutedPlan } from '../sender'
import { PlatformServices } from '../services'
import { address, amount, deadline, NATIVE, optionalUserId, TokenRef, tokenRef, userId } from '../validation'
import { walletsOf } from '../wallets'

const AddLiquidityInput = z.object({
    token1: tokenRef, token2: tokenRef, amount1_desired: amount, amount2_desired: amount,
    amount1_min: amount, amount2_min: amount, address, deadline, user_id: optionalUserId,
})
const AddLiquidityNativeInput = z.object({
    token: tokenRef, amount_token_desired: amount, amount_native_desired: amount,
    amount_token_min: amount, amount_native_min: amount, address, deadline, user_id: optionalUserId,
})
const RemoveLiquidityInput = z.object({
    token1: tokenRef, token2: tokenRef, liquidity: amount, amount1_min: amount, amount2_min: amount,
    address_to: address, deadline, user_id: optionalUserId,
})
const RemoveLiquidityNativeInput = z.object({
    token: tokenRef, liquidity: amount, amount_token_min: amount, amount_native_min: amount,
    address_to: address, deadline, user_id: optionalUserId,
})
const WalletPoolsInput = z.object({ address, user_id: optionalUserId })
const UserPoolsInput = z.object({ user_id: userId })
const UserWalletPoolsInput = z.object({ user_id: userId, user_addr: address })
const PoolByAddressInput = z.object({ user_id: userId, address })
const PoolByTokensInput = z.object({ user_id: userId, token1: tokenRef, token2: tokenRef })

const sent = { hash: txHash, approval_hashes: z.array(txHash), pair: checksummedAddress }
const Added = z.looseObject({ ...sent, token1: checksummedAddress, token2: checksummedAddress, ...amountSchema('amount1'), ...amountSchema('amount2'), ...amountSchema('liquidity') })
const AddedNative = z.looseObject({ ...sent, token: checksummedAddress, ...amountSchema('amount_token'), ...amountSchema('amount_native'), ...amountSchema('liquidity') })
const Removed = Added
const RemovedNative = AddedNative.extend({ method: z.string() })

const PoolPair = z.looseObject({
    address: checksummedAddress,
    token0: checksummedAddress,
    token1: checksummedAddress,
    ...amountSchema('reserve0'),
    ...amountSchema('reserve1'),
    ...amountSchema('total_supply'),
    ...amountSchema('lp_balance'),
    share: z.string().regex(/^\d+(\.\d+)?$/),
    wallets: z.array(z.looseObject({ address: checksummedAddress, ...amountSchema('lp_balance') })),
}).meta({ id: 'PoolPair' })
const PoolToken = z.looseObject({
    address: checksummedAddress,
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    ...amountSchema('reserve'),
    ...amountSchema('user_amount'),
}).meta({ id: 'PoolToken' })
/** poolView: [pair, token1, token2]. */
const PoolView = z.tuple([PoolPair, PoolToken, PoolToken]).meta({ id: 'PoolView' })

function writing(operationId: string, summary: string, body: z.ZodObject, result: z.ZodType): Operation {
    return withIdempotencyKey({
        operationId,
        summary,
        description: 'Wallet-level: the password of the wallet\'s owner. Amounts in whole tokens; approves the router when needed.',
        body,
        security: PASSWORD,
        responses: {
            200: { description: 'Mined; the amounts are those the pair recorded', schema: inData(result) },
            400: 'Invalid input, an amount the token cannot represent, too little balance, no such pair, or a transaction the chain rejects',
            ...PASSWORD_ANSWERS,
            ...TOKEN_ANSWERS,
            ...SEND_ANSWERS,
        },
    })
}

function reading(operationId: string, summary: string, query: z.ZodObject, result: z.ZodType, notFound: string): Operation {
    return {
        operationId,
        summary,
        query,
        security: PASSWORD,
        responses: {
            200: { description: 'Live reserves and LP balances', schema: inData(z.looseObject({ result })) },
            400: 'Invalid input',
            404: notFound,
            ...PASSWORD_ANSWERS,
            ...TOKEN_ANSWERS,
            ...CHAIN_ANSWERS,
        },
    }
}

/**
 * /api/pools: liquidity in our AMM's pairs. Writes approve the router for the caller when needed,
 * pass a deadline and the caller's _min floors to the router, and report the amounts the pair's
 * Mint/Burn events recorded. Reads answer { result: [pair, token1, token2] } (lists: an array of
 * such triples) with live reserves and LP balances; which pools a wallet is in comes from the
 * indexer's LP token balances.
 */
export function poolRoutes(services: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/pools', 'Pools')
    const serve = (handler: PoolHandler) => (req: Request, res: Response) => handler(services, req, res)

    router.post('/add_liquidity', writing('addLiquidity', 'Add liquidity to the pair of two tokens', AddLiquidityInput, Added), services.idempotency.middleware(), serve(addLiquidity))
    router.post('/add_liquidity_native', writing('addLiquidityNative', 'Add liquidity to the pair of a token and the native coin', AddLiquidityNativeInput, AddedNative), services.idempotency.middleware(), serve(addLiquidityNative))
    router.post('/remove_liquidity', writing('removeLiquidity', 'Remove liquidity from the pair of two tokens', RemoveLiquidityInput, Removed), services.idempotency.middleware(), serve(removeLiquidity))
    router.post('/remove_liquidity_native', writing('removeLiquidityNative', 'Remove liquidity from the pair of a token and the native coin', RemoveLiquidityNativeInput, RemovedNative), services.idempotency.middleware(), serve(removeLiquidityNative))

    const stale = 'A pool the indexer lists is not a pool of this AMM'
    router.get('/list', reading('listWalletPools', "The pools a wallet holds LP tokens of (wallet-level: the owner's password)", WalletPoolsInput, z.array(PoolView), stale), serve(listWalletPools))
    router.get('/list_by_user', reading('listUserPools', "The pools any of the user's wallets holds LP tokens of", UserPoolsInput, z.array(PoolView), stale), serve(listUserPools))
    router.get('/list_by_user_and_address', reading('listUserWalletPools', "The pools one of the user's wallets holds LP tokens of", UserWalletPoolsInput, z.array(PoolView), stale), serve(listUserWalletPools))
    router.get('/info_by_address', reading('getPoolByAddress', 'One pool by its pair address, with the user\'s share', PoolByAddressInput, PoolView, 'No pool of this AMM at the address'), serve(poolByAddress))
    router.get('/info_by_tokens', reading('getPoolByTokens', 'One pool by its two tokens, with the user\'s share', PoolByTokensInput, PoolView, 'The pair of the two tokens does not exist'), serve(poolByTokens))

    return router
}

type PoolHandler = (services: PlatformServices, req: Request, res: Response) => Promise<void>

async function addLiquidity(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const input = parseInput(AddLiquidityInput, req.body)
    const { auth, routerAddress, token1, token2 } = await tokenPair(services, req, input, input.address, '/api/pools/add_liquidity_native')
    const desired1 = parsePositiveAmount(input.amount1_desired, token1.decimals, 'amount1_desired')
    const desired2 = parsePositiveAmount(input.amount2_desired, token2.decimals, 'amount2_desired')
    const min1 = floor(input.amount1_min, desired1, token1, 'amount1')
    const min2 = floor(input.amount2_min, desired2, token2, 'amount2')
    await requireBalance(services.chain, token1, input.address, desired1, 'amount1_desired')
    await requireBalance(services.chain, token2, input.address, desired2, 'amount2_desired')
    const expiry = await routerDeadline(services, input.deadline)
    const steps = [
        ...(await approvalStep(services.chain, token1.address, input.address, desired1)),
        ...(await approvalStep(services.chain, token2.address, input.address, desired2)),
        { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'addLiquidity', args: [token1.address, token2.address, desired1, desired2, min1, min2, input.address, expiry] }) },
    ]
    const executed = await services.sender.execute(services.auth.account(auth), steps)
    const pair = (await services.chain.pairOf(token1.address, token2.address))!
    const [added1, added2] = pairAmounts(executed.receipt.logs, pair, 'Mint', token1.address, token2.address)
    sendData(res, {
        ...sentHashes(executed),
        pair,
        token1: token1.address,
        token2: token2.address,
        ...amountFields('amount1', added1, token1.decimals),
        ...amountFields('amount2', added2, token2.decimals),
        ...amountFields('liquidity', transferred(executed.receipt.logs, pair, { from: zeroAddress, to: input.address }), 18),
    })
}

async function addLiquidityNative(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const input = parseInput(AddLiquidityNativeInput, req.body)
    notNative(input.token, 'token', "give the pool's other token (the native side is amount_native_*)")
    const auth = await services.auth.wallet(req, input.address, input.user_id)
    const { router: routerAddress, wnative } = await services.chain.ready()
    const [token] = await distinctTokens(services, input.token, wnative)
    const desiredToken = parsePositiveAmount(input.amount_token_desired, token.decimals, 'amount_token_desired')
    const desiredNative = parsePositiveAmount(input.amount_native_desired, 18, 'amount_native_desired')
    const minToken = floor(input.amount_token_min, desiredToken, token, 'amount_token')
    const minNative = floor(input.amount_native_min, desiredNative, NATIVE_META, 'amount_native')
    await requireBalance(services.chain, token, input.address, desiredToken, 'amount_token_desired')
    await requireNativeBalance(services.chain, input.address, desiredNative, 'amount_native_desired')
    const expiry = await routerDeadline(services, input.deadline)
    const steps = [
        ...(await approvalStep(services.chain, token.address, input.address, desiredToken)),
        {
            to: routerAddress,
            value: desiredNative,
            data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'addLiquidityETH', args: [token.address, desiredToken, minToken, minNative, input.address, expiry] }),
        },
    ]
    const executed = await services.sender.execute(services.auth.account(auth), steps)
    const pair = (await services.chain.pairOf(token.address, wnative))!
    const [addedToken, addedNative] = pairAmounts(executed.receipt.logs, pair, 'Mint', token.address, wnative)
    sendData(res, {
        ...sentHashes(executed),
        pair,
        token: token.address,
        ...amountFields('amount_token', addedToken, token.decimals),
        ...amountFields('amount_native', addedNative, 18),
        ...amountFields('liquidity', transferred(executed.receipt.logs, pair, { from: zeroAddress, to: input.address }), 18),
    })
}

async function removeLiquidity(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const input = parseInput(RemoveLiquidityInput, req.body)
    const { auth, routerAddress, token1, token2 } = await tokenPair(services, req, input, input.address_to, '/api/pools/remove_liquidity_native')
    const pair = await existingPair(services, token1, token2)
    const liquidity = parsePositiveAmount(input.liquidity, 18, 'liquidity')
    const min1 = parseAmount(input.amount1_min, token1.decimals, 'amount1_min')
    const min2 = parseAmount(input.amount2_min, token2.decimals, 'amount2_min')
    await requireBalance(services.chain, lpMeta(pair), input.address_to, liquidity, 'liquidity')
    const expiry = await routerDeadline(services, input.deadline)
    const steps = [
        ...(await approvalStep(services.chain, pair, input.address_to, liquidity)),
        { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'removeLiquidity', args: [token1.address, token2.address, liquidity, min1, min2, input.address_to, expiry] }) },
    ]
    const executed = await services.sender.execute(services.auth.account(auth), steps)
    const [removed1, removed2] = pairAmounts(executed.receipt.logs, pair, 'Burn', token1.address, token2.address)
    sendData(res, {
        ...sentHashes(executed),
        pair,
        token1: token1.address,
        token2: token2.address,
        ...amountFields('liquidity', liquidity, 18),
        ...amountFields('amount1', removed1, token1.decimals),
        ...amountFields('amount2', removed2, token2.decimals),
    })
}

/** Its field names mirror add_liquidity_native: token, liquidity, amount_token_min, amount_native_min, address_to. */
async function removeLiquidityNative(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const input = parseInput(RemoveLiquidityNativeInput, req.body)
    notNative(input.token, 'token', "give the pool's other token")
    const auth = await services.auth.wallet(req, input.address_to, input.user_id)
    const { router: routerAddress, wnative } = await services.chain.ready()
    const [token] = await distinctTokens(services, input.token, wnative)
    const pair = await existingPair(services, token, { ...NATIVE_META, address: wnative })
    const liquidity = parsePositiveAmount(input.liquidity, 18, 'liquidity')
    const minToken = parseAmount(input.amount_token_min, token.decimals, 'amount_token_min')
    const minNative = parseAmount(input.amount_native_min, 18, 'amount_native_min')
    await requireBalance(services.chain, lpMeta(pair), input.address_to, liquidity, 'liquidity')
    const fees = await services.chain.tokenFees(token.address)
    // A fee-charging token arrives at the router short of what the pair sent: only the supporting method can pass it on.
    const method = fees.buying > 0 || fees.selling > 0 ? 'removeLiquidityETHSupportingFeeOnTransferTokens' : 'removeLiquidityETH'
    const expiry = await routerDeadline(services, input.deadline)
    const steps = [
        ...(await approvalStep(services.chain, pair, input.address_to, liquidity)),
        { to: routerAddress, data: encodeFunctionData({ abi: ammRouterAbi, functionName: method as 'removeLiquidityETH', args: [token.address, liquidity, minToken, minNative, input.address_to, expiry] }) },
    ]
    const executed = await services.sender.execute(services.auth.account(auth), steps)
    const [removedToken, removedNative] = pairAmounts(executed.receipt.logs, pair, 'Burn', token.address, wnative)
    sendData(res, {
        ...sentHashes(executed),
        pair,
        token: token.address,
        method,
        ...amountFields('liquidity', liquidity, 18),
        ...amountFields('amount_token', removedToken, token.decimals),
        ...amountFields('amount_native', removedNative, 18),
    })
}

async function listWalletPools(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const query = parseInput(WalletPoolsInput, req.query)
    await services.auth.wallet(req, query.address, query.user_id)
    sendData(res, { result: await positions(services, [query.address]) })
}

async function listUserPools(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const query = parseInput(UserPoolsInput, req.query)
    await services.auth.user(req, query.user_id)
    sendData(res, { result: await positions(services, await walletsOf(services.pool, query.user_id)) })
}

async function listUserWalletPools(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const query = parseInput(UserWalletPoolsInput, req.query)
    await services.auth.wallet(req, query.user_addr, query.user_id)
    sendData(res, { result: await positions(services, [query.user_addr]) })
}

async function poolByAddress(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const query = parseInput(PoolByAddressInput, req.query)
    await services.auth.user(req, query.user_id)
    await services.chain.ready()
    sendData(res, { result: await poolView(services, query.address, await walletsOf(services.pool, query.user_id)) })
}

async function poolByTokens(services: PlatformServices, req: Request, res: Response): Promise<void> {
    const query = parseInput(PoolByTokensInput, req.query)
    await services.auth.user(req, query.user_id)
    const { wnative } = await services.chain.ready()
    // Pools hold WNATIVE, so NATIVE here means the native coin's pool side.
    const address1 = query.token1 === NATIVE ? wnative : query.token1
    const address2 = query.token2 === NATIVE ? wnative : query.token2
    const [token1, token2] = await distinctTokens(services, address1, address2)
    const pair = await services.chain.pairOf(token1.address, token2.address)
    if (!pair) throw notFound(`The pair of ${token1.symbol || token1.address} and ${token2.symbol || token2.address} does not exist (getPair returns the zero address); add liquidity to create it`)
    sendData(res, { result: await poolView(services, pair, await walletsOf(services.pool, query.user_id), [token1.address, token2.address]) })
}

const NATIVE_META: TokenMeta = { address: zeroAddress, name: NATIVE, symbol: NATIVE, decimals: 18 }
const lpMeta = (pair: Address): TokenMeta => ({ address: pair, name: 'LP', symbol: 'LP', decimals: 18 })

function notNative(token: TokenRef, field: string, hint: string): asserts token is Address {
    if (token === NATIVE) throw badRequest(`${field} is the native coin, which this route does not take; ${hint}`)
}

/**
 * The two tokens of a route that takes no native coin (`nativeRoute` does), once the caller may
 * act for `wallet`: what add_liquidity and remove_liquidity start from.
 */
async function tokenPair(
    services: PlatformServices,
    req: Request,
    input: { token1: TokenRef; token2: TokenRef; user_id?: string },
    wallet: Address,
    nativeRoute: string
) {
    const { token1, token2 } = input
    notNative(token1, 'token1', `use ${nativeRoute}`)
    notNative(token2, 'token2', `use ${nativeRoute}`)
    const auth = await services.auth.wallet(req, wallet, input.user_id)
    const { router: routerAddress } = await services.chain.ready()
    const [meta1, meta2] = await distinctTokens(services, token1, token2)
    return { auth, routerAddress, token1: meta1, token2: meta2 }
}

async function distinctTokens(services: PlatformServices, first: Address, second: Address): Promise<[TokenMeta, TokenMeta]> {
    if (same(first, second)) throw badRequest('The two tokens are the same; a pool needs two different tokens')
    return Promise.all([services.chain.tokenMeta(first), services.chain.tokenMeta(second)])
}

async function existingPair(services: PlatformServices, first: TokenMeta, second: TokenMeta): Promise<Address> {
    const pair = await services.chain.pairOf(first.address, second.address)
    if (!pair) throw badRequest(`The pair of ${first.symbol || first.address} and ${second.symbol || second.address} does not exist (getPair returns the zero address); there is no liquidity to remove`)
    return pair
}

/** A _min floor in the token's units; above its _desired amount it could never be met. */
function floor(value: string | number, desired: bigint, token: TokenMeta, name: string): bigint {
    const min = parseAmount(value, token.decimals, `${name}_min`)
    if (min > desired) throw badRequest(`${name}_min is above ${name}_desired; the router could never add that much`)
    return min
}

function routerDeadline(services: PlatformServices, override: number | undefined): Promise<bigint> {
    return services.chain.deadline(services.env.PLATFORM_DEADLINE_SECONDS, override)
}

/** The main transaction's hash and those of the approvals sent before it. */
function sentHashes({ hashes, receipt }: ExecutedPlan) {
    return { hash: receipt.transactionHash, approval_hashes: hashes.slice(0, -1) }
}

/** The pair's Mint or Burn amounts, in the order (tokenA, tokenB). */
function pairAmounts(logs: Log[], pair: Address, event: 'Mint' | 'Burn', tokenA: Address, tokenB: Address): [bigint, bigint] {
    const found = parseEventLogs({ abi: ammPairAbi, logs, eventName: event }).find((log) => same(log.address, pair))
    if (!found) return [0n, 0n]
    const { amount0, amount1 } = found.args as { amount0: bigint; amount1: bigint }
    // Pairs order their tokens by address.
    return BigInt(tokenA) < BigInt(tokenB) ? [amount0, amount1] : [amount1, amount0]
}

/** Pools in which any of the holders has LP tokens (per the indexer), each as a [pair, token0, token1] view. */
async function positions(services: PlatformServices, holders: Address[]) {
    if (holders.length === 0) return []
    await services.chain.ready()
    const pairs = await pairsHeldBy(services.pool, holders)
    const views = await Promise.all(pairs.map((pair) => poolView(services, getAddress(pair), holders)))
    // The indexer can trail the chain by a block: keep what the chain says is still held.
    return views.filter(([pair]) => BigInt(pair.lp_balance_raw) > 0n)
}

/**
 * [pair, token1, token2] of one pool. The pair element: address, token0/token1 (the pair's own
 * order), reserves, LP total supply, the holders' LP balance, their share of the pool, and per
 * wallet balances. Token elements: address, name, symbol, decimals, the pool's reserve of it and
 * the holders' claim on that reserve. Tokens come in `order` when given, else the pair's order.
 */
async function poolView(services: PlatformServices, pair: Address, holders: Address[], order?: [Address, Address]) {
    const { chain } = services
    const read = <T>(fn: () => Promise<T>) => chain.read(fn)
    const code = await read(() => chain.client.getCode({ address: pair }))
    if (!code || code === '0x') throw notFound(`There is no pool at ${pair}`)
    const [token0, token1] = await Promise.all([
        read(() => chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })),
        read(() => chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token1' })),
    ]).catch(() => {
        throw notFound(`${pair} is not a pool of this AMM`)
    })
    const listed = await chain.pairOf(token0, token1)
    if (!listed || !same(listed, pair)) throw notFound(`${pair} is not a pool of this AMM`)
    const [[reserve0, reserve1], totalSupply, meta0, meta1, lpBalances] = await Promise.all([
        chain.reserves(pair, token0),
        read(() => chain.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'totalSupply' })),
        chain.tokenMeta(token0),
        chain.tokenMeta(token1),
        Promise.all(holders.map((holder) => chain.balanceOf(pair, holder))),
    ])
    const held = lpBalances.reduce((sum, balance) => sum + balance, 0n)
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
            .map((holder, i) => ({ address: holder, ...amountFields('lp_balance', lpBalances[i], 18) }))
            .filter((wallet) => BigInt(wallet.lp_balance_raw) > 0n),
    }
    const views = [tokenView(meta0, reserve0), tokenView(meta1, reserve1)] as const
    const swapped = order !== undefined && !same(order[0], token0)
    return [pairView, swapped ? views[1] : views[0], swapped ? views[0] : views[1]] as const
}
