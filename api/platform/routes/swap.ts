import { Request } from 'express'
import { Address, encodeFunctionData } from 'viem'
import { z } from 'zod'
import { ammRouterAbi } from '../../../abi'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { withIdempotencyKey } from '../../../common/service/idempotency'
import { amountFields, AmountInput, formatAmount, parseAmount, parsePositiveAmount } from '../amounts'
import {
    amountSchema, checksummedAddress, inData, PASSWORD, PASSWORD_ANSWERS, SEND_ANSWERS, TOKEN_ANSWERS, tokenInAnswer, txHash,
} from '../api-doc'
import { approvalStep, bestExactIn, bestExactOut, label, requireBalance, Route, transferred, wrapped } from '../amm'
import { TokenMeta } from '../chain'
import { badRequest, HttpError, parseInput, sendData } from '../http'
import { TxStep } from '../sender'
import { PlatformServices } from '../services'
import { address, amount, deadline, NATIVE, nonZeroAddress, optionalUserId, TokenRef, tokenRef } from '../validation'

/**
 * /api/swap: the six router intents, signed by the `from` wallet. Routes go
 * through the direct pair, else through WNATIVE or STABLE, whichever quotes best. When a token on
 * the route charges a transfer fee, the router's SupportingFeeOnTransferTokens methods are used;
 * for "exact output" intents (which have no such method) the input that yields the output after
 * fees is computed here and sent as an exact-input swap whose minimum output is the requested
 * amount, so the caller's bounds still hold. Amounts in the answer are read from the receipt.
 */

type Intent = 'exact_in' | 'exact_out'

interface SwapRequest {
    intent: Intent
    tokenIn: TokenRef
    tokenOut: TokenRef
    /** The exact side: amount in (exact_in) or amount out (exact_out). */
    exact: AmountInput
    exactField: string
    /** The bound: minimum out (exact_in) or maximum in (exact_out). */
    bound: AmountInput
    boundField: string
    from: Address
    to: Address
    deadline?: number
    userId?: string
}

const common = {
    from: address,
    to: nonZeroAddress.optional(),
    deadline,
    user_id: optionalUserId,
}

const ExactTokensForTokens = z.object({ ...common, amount_in: amount, amount_out_min: amount, token1: tokenRef, token2: tokenRef })
const TokensForExactTokens = z.object({ ...common, amount_out: amount, amount_in_max: amount, token1: tokenRef, token2: tokenRef })
const ExactNativeForTokens = z.object({ ...common, amount_out_min: amount, token: tokenRef })
const NativeForExactTokens = z.object({ ...common, token: tokenRef })
const ExactTokensForNative = z.object({ ...common, token1: tokenRef, token2: tokenRef.optional() })
const TokensForExactNative = z.object({ ...common, amount_out: amount, amount_in_max: amount, token1: tokenRef, token2: tokenRef.optional() })

/** Amounts some routes take under several names (aliased()): the published name first. */
const NATIVE_SPEND = ['amount_native', 'amount_in']
const NATIVE_MAX_SPEND = ['amount_native', 'amount_in_max']
const EXACT_TOKENS_OUT = ['amount_out_min', 'amount_out']
const EXACT_TOKENS_SPEND = ['amount_in_max', 'amount_in']
const NATIVE_FLOOR = ['amount_out', 'amount_out_min']

/** A route's body in the document: its schema, plus each aliased amount as an optional field (one name of each group must be given). */
function withAliases(schema: z.ZodObject, ...groups: string[][]): z.ZodObject {
    return schema.extend(Object.fromEntries(groups.flat().map((name) => [name, amount.nullish()])))
}

/** A swap as mined: the quote of the exact side (quoted_amount_out for exact input, quoted_amount_in for exact output). */
function swapResult(intent: Intent) {
    return z.looseObject({
        hash: txHash,
        approval_hash: txHash.nullable(),
        block_number: z.number().int(),
        from: checksummedAddress,
        to: checksummedAddress,
        token_in: tokenInAnswer,
        token_out: tokenInAnswer,
        path: z.array(checksummedAddress),
        method: z.string(),
        fee_on_transfer: z.boolean(),
        ...amountSchema('amount_in'),
        ...amountSchema('amount_out'),
        ...(intent === 'exact_in' ? amountSchema('quoted_amount_out') : amountSchema('quoted_amount_in')),
    })
}
const SWAP_RESULTS: Record<Intent, z.ZodType> = {
    exact_in: swapResult('exact_in').meta({ id: 'SwapExactInput' }),
    exact_out: swapResult('exact_out').meta({ id: 'SwapExactOutput' }),
}

export function swapRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/swap', 'Swaps')

    const handle = (path: string, operationId: string, summary: string, intent: Intent, body: z.ZodObject, build: (req: Request) => SwapRequest) => {
        router.post(`/${path}`, withIdempotencyKey({
            operationId,
            summary,
            description: "Wallet-level: the password of the from wallet's owner. Amounts in whole tokens; to defaults to from.",
            body,
            security: PASSWORD,
            responses: {
                200: { description: 'Mined; amount_in and amount_out as the receipt recorded them', schema: inData(SWAP_RESULTS[intent]) },
                400: 'Invalid input, an amount the token cannot represent, too little balance, no route, a bound the quote misses, or a swap the chain rejects',
                ...PASSWORD_ANSWERS,
                ...TOKEN_ANSWERS,
                ...SEND_ANSWERS,
            },
        }), s.idempotency.middleware(), async (req, res) => {
            const swap = build(req)
            const auth = await s.auth.wallet(req, swap.from, swap.userId)
            sendData(res, await executeSwap(s, s.auth.account(auth), swap))
        })
    }

    handle('execute_exact_tokens_for_tokens', 'swapExactTokensForTokens', 'Swap an exact amount of token1 for at least amount_out_min of token2', 'exact_in', ExactTokensForTokens, (req) => {
        const b = parseInput(ExactTokensForTokens, req.body)
        noNative(b.token1, 'token1', 'execute_exact_native_for_tokens')
        noNative(b.token2, 'token2', 'execute_exact_tokens_for_native')
        return { intent: 'exact_in', tokenIn: b.token1, tokenOut: b.token2, exact: b.amount_in, exactField: 'amount_in', bound: b.amount_out_min, boundField: 'amount_out_min', from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    handle('execute_tokens_for_exact_tokens', 'swapTokensForExactTokens', 'Swap at most amount_in_max of token1 for an exact amount of token2', 'exact_out', TokensForExactTokens, (req) => {
        const b = parseInput(TokensForExactTokens, req.body)
        noNative(b.token1, 'token1', 'execute_native_for_exact_tokens')
        noNative(b.token2, 'token2', 'execute_tokens_for_exact_native')
        return { intent: 'exact_out', tokenIn: b.token1, tokenOut: b.token2, exact: b.amount_out, exactField: 'amount_out', bound: b.amount_in_max, boundField: 'amount_in_max', from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    handle('execute_exact_native_for_tokens', 'swapExactNativeForTokens', 'Swap an exact amount of the native coin (amount_native, or amount_in) for a token', 'exact_in', withAliases(ExactNativeForTokens, NATIVE_SPEND), (req) => {
        const b = parseInput(ExactNativeForTokens, req.body)
        noNative(b.token, 'token', 'a token address as the output')
        const spend = aliased(req.body, NATIVE_SPEND)
        return { intent: 'exact_in', tokenIn: NATIVE, tokenOut: b.token, exact: spend.value, exactField: spend.field, bound: b.amount_out_min, boundField: 'amount_out_min', from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    handle('execute_native_for_exact_tokens', 'swapNativeForExactTokens', 'Swap at most amount_native (or amount_in_max) of the native coin for an exact amount (amount_out_min, or amount_out) of a token', 'exact_out', withAliases(NativeForExactTokens, EXACT_TOKENS_OUT, NATIVE_MAX_SPEND), (req) => {
        const b = parseInput(NativeForExactTokens, req.body)
        noNative(b.token, 'token', 'a token address as the output')
        // Clients name the exact output amount_out_min on this route (docs/platform-api.md, swaps); amount_out is accepted too.
        const out = aliased(req.body, EXACT_TOKENS_OUT)
        const max = aliased(req.body, NATIVE_MAX_SPEND)
        return { intent: 'exact_out', tokenIn: NATIVE, tokenOut: b.token, exact: out.value, exactField: out.field, bound: max.value, boundField: max.field, from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    handle('execute_exact_tokens_for_native', 'swapExactTokensForNative', 'Swap an exact amount (amount_in_max, or amount_in) of token1 for at least amount_out (or amount_out_min) of the native coin', 'exact_in', withAliases(ExactTokensForNative, EXACT_TOKENS_SPEND, NATIVE_FLOOR), (req) => {
        const b = parseInput(ExactTokensForNative, req.body)
        noNative(b.token1, 'token1', 'a token address as the input')
        nativeOutput(s, b.token2)
        // Clients send amount_in_max (the exact spend) and amount_out (the floor) here (docs/platform-api.md, swaps); amount_in and amount_out_min are accepted too.
        const spend = aliased(req.body, EXACT_TOKENS_SPEND)
        const floor = aliased(req.body, NATIVE_FLOOR)
        return { intent: 'exact_in', tokenIn: b.token1, tokenOut: NATIVE, exact: spend.value, exactField: spend.field, bound: floor.value, boundField: floor.field, from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    handle('execute_tokens_for_exact_native', 'swapTokensForExactNative', 'Swap at most amount_in_max of token1 for an exact amount of the native coin', 'exact_out', TokensForExactNative, (req) => {
        const b = parseInput(TokensForExactNative, req.body)
        noNative(b.token1, 'token1', 'a token address as the input')
        nativeOutput(s, b.token2)
        return { intent: 'exact_out', tokenIn: b.token1, tokenOut: NATIVE, exact: b.amount_out, exactField: 'amount_out', bound: b.amount_in_max, boundField: 'amount_in_max', from: b.from, to: b.to ?? b.from, deadline: b.deadline, userId: b.user_id }
    })

    return router
}

function noNative(token: TokenRef, field: string, instead: string): asserts token is Address {
    if (token === NATIVE) {
        throw badRequest(`${field} is the native coin, which this route does not trade; use ${instead.startsWith('execute_') ? `/api/swap/${instead}` : instead}`)
    }
}

/** token2 of the native-output routes may be omitted; given, it must name the native coin (or WNATIVE). */
function nativeOutput(s: PlatformServices, token: TokenRef | undefined): void {
    if (token === undefined || token === NATIVE) return
    if (token.toLowerCase() !== s.chain.contracts().wnative.toLowerCase()) {
        throw badRequest(`token2 must be ${NATIVE} (or the WNATIVE address) on this route: it pays out the native coin`)
    }
}

/** An amount whose published name is missing or odd, under its accepted names (docs/platform-api.md, swaps); exactly one value must be given. */
function aliased(body: unknown, names: string[]): { value: AmountInput; field: string } {
    const record = (body ?? {}) as Record<string, unknown>
    const given = names.filter((n) => record[n] !== undefined && record[n] !== null)
    if (given.length === 0) throw badRequest(`Invalid input: ${names[0]} is required${names.length > 1 ? ` (or ${names.slice(1).join(', ')})` : ''}`)
    const values = new Set(given.map((n) => String(record[n])))
    if (values.size > 1) throw badRequest(`Invalid input: ${given.join(' and ')} name the same amount and differ; give one`)
    const parsed = amount.safeParse(record[given[0]])
    if (!parsed.success) throw badRequest(`Invalid input: ${given[0]}: must be a decimal string in whole tokens, such as "1.5"`)
    return { value: parsed.data, field: given[0] }
}

async function executeSwap(s: PlatformServices, account: Parameters<PlatformServices['sender']['execute']>[0], swap: SwapRequest) {
    const { wnative, router } = await s.chain.ready()
    const native: TokenMeta = { address: wnative, name: NATIVE, symbol: NATIVE, decimals: 18 }
    const [tokenIn, tokenOut] = await Promise.all([
        swap.tokenIn === NATIVE ? native : s.chain.tokenMeta(swap.tokenIn),
        swap.tokenOut === NATIVE ? native : s.chain.tokenMeta(swap.tokenOut),
    ])
    if (tokenIn.address.toLowerCase() === tokenOut.address.toLowerCase()) {
        throw badRequest(swap.tokenIn === NATIVE || swap.tokenOut === NATIVE
            ? 'NATIVE and WNATIVE are the same asset; wrap or unwrap through the WNATIVE contract instead of swapping'
            : 'The input and output tokens are the same; give two different tokens')
    }
    const nativeIn = swap.tokenIn === NATIVE
    const nativeOut = swap.tokenOut === NATIVE
    const from = account.address
    const dl = await s.chain.deadline(s.env.PLATFORM_DEADLINE_SECONDS, swap.deadline)

    let route: Route
    let amountIn: bigint
    let quoted: bigint
    let minOut: bigint
    let amountOut = 0n
    let maxIn = 0n
    if (swap.intent === 'exact_in') {
        amountIn = parsePositiveAmount(swap.exact, tokenIn.decimals, swap.exactField)
        minOut = parseAmount(swap.bound, tokenOut.decimals, swap.boundField)
        const best = await bestExactIn(s.chain, tokenIn, tokenOut, amountIn)
        route = best.route
        quoted = best.amountOut
    } else {
        amountOut = parsePositiveAmount(swap.exact, tokenOut.decimals, swap.exactField)
        maxIn = parseAmount(swap.bound, tokenIn.decimals, swap.boundField)
        const best = await bestExactOut(s.chain, tokenIn, tokenOut, amountOut)
        route = best.route
        amountIn = best.amountIn
        quoted = best.amountIn
        minOut = amountOut
        if (amountIn > maxIn) throw excessiveInput(tokenIn, amountIn, swap.boundField)
    }
    const inputField = swap.intent === 'exact_in' ? swap.exactField : 'the input needed'
    // Exact output through a fee-charging token has no router method: it goes as exact input, sized above.
    const sendExactIn = swap.intent === 'exact_in' || route.feeOnTransfer
    const suffix = route.feeOnTransfer ? 'SupportingFeeOnTransferTokens' : ''
    let steps: TxStep[]
    let method: string
    if (nativeIn) {
        const balance = await s.chain.nativeBalance(from)
        if (balance < amountIn) {
            throw badRequest(`insufficient funds: the wallet holds ${formatAmount(balance, 18)} NATIVE, less than ${inputField} (${formatAmount(amountIn, 18)})`)
        }
        if (sendExactIn) {
            method = `swapExactETHForTokens${suffix}`
            steps = [{ to: router, value: amountIn, data: encodeFunctionData({ abi: ammRouterAbi, functionName: method as 'swapExactETHForTokens', args: [minOut, route.path, swap.to, dl] }) }]
        } else {
            // Send at most the bound (the router refunds what it does not use), and never more than the wallet holds.
            method = 'swapETHForExactTokens'
            const value = balance < maxIn ? balance : maxIn
            steps = [{ to: router, value, data: encodeFunctionData({ abi: ammRouterAbi, functionName: 'swapETHForExactTokens', args: [amountOut, route.path, swap.to, dl] }) }]
        }
    } else {
        await requireBalance(s.chain, tokenIn, from, amountIn, inputField)
        if (sendExactIn) {
            method = nativeOut ? `swapExactTokensForETH${suffix}` : `swapExactTokensForTokens${suffix}`
            steps = [
                ...(await approvalStep(s.chain, tokenIn.address, from, amountIn)),
                { to: router, data: encodeFunctionData({ abi: ammRouterAbi, functionName: method as 'swapExactTokensForTokens', args: [amountIn, minOut, route.path, swap.to, dl] }) },
            ]
        } else {
            method = nativeOut ? 'swapTokensForExactETH' : 'swapTokensForExactTokens'
            steps = [
                ...(await approvalStep(s.chain, tokenIn.address, from, maxIn)),
                { to: router, data: encodeFunctionData({ abi: ammRouterAbi, functionName: method as 'swapTokensForExactTokens', args: [amountOut, maxIn, route.path, swap.to, dl] }) },
            ]
        }
    }

    const { hashes, receipt } = await s.sender.execute(account, steps)
    const actualIn = nativeIn ? wrapped(receipt.logs, wnative, router, 'Deposit') : transferred(receipt.logs, tokenIn.address, { from })
    const actualOut = nativeOut ? wrapped(receipt.logs, wnative, router, 'Withdrawal') : transferred(receipt.logs, tokenOut.address, { to: swap.to })
    return {
        hash: receipt.transactionHash,
        approval_hash: hashes.length > 1 ? hashes[0] : null,
        block_number: Number(receipt.blockNumber),
        from,
        to: swap.to,
        token_in: nativeIn ? NATIVE : tokenIn.address,
        token_out: nativeOut ? NATIVE : tokenOut.address,
        path: route.path,
        method,
        fee_on_transfer: route.feeOnTransfer,
        ...amountFields('amount_in', actualIn, tokenIn.decimals),
        ...amountFields('amount_out', actualOut, tokenOut.decimals),
        ...(swap.intent === 'exact_in'
            ? amountFields('quoted_amount_out', quoted, tokenOut.decimals)
            : amountFields('quoted_amount_in', quoted, tokenIn.decimals)),
    }
}

function excessiveInput(token: TokenMeta, needed: bigint, field: string): HttpError {
    return badRequest(
        `EXCESSIVE_INPUT_AMOUNT: at the current reserves this costs ${formatAmount(needed, token.decimals)} ${label(token)}, ` +
            `more than ${field}; raise ${field} or quote again`
    )
}
