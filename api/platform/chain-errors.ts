import { Abi, BaseError, decodeErrorResult, Hex, isHex } from 'viem'
import { platformTokenAbi } from '../../abi'
import { HttpError } from './http'

/**
 * Turns what the node or a contract said into a 4xx the caller can act on. Revert reasons of
 * our contracts carry the Uniswap V2 tokens (INSUFFICIENT_OUTPUT_AMOUNT, ...); each gets a
 * sentence saying what to change. Unknown reverts still leave as 400 with the reason itself.
 */

const ADVICE: [RegExp, string][] = [
    [/INSUFFICIENT_OUTPUT_AMOUNT/, 'INSUFFICIENT_OUTPUT_AMOUNT: the trade would pay out less than amount_out_min (the bound is too tight or the price moved); quote again or lower amount_out_min'],
    [/EXCESSIVE_INPUT_AMOUNT/, 'EXCESSIVE_INPUT_AMOUNT: the trade would cost more than amount_in_max (the price moved); quote again or raise amount_in_max'],
    [/INSUFFICIENT_INPUT_AMOUNT/, 'INSUFFICIENT_INPUT_AMOUNT: the input is zero or too small for the pool to give anything back; send a larger amount'],
    [/INSUFFICIENT_LIQUIDITY_MINTED/, 'INSUFFICIENT_LIQUIDITY_MINTED: the amounts are too small to mint any liquidity; add more of both tokens'],
    [/INSUFFICIENT_LIQUIDITY_BURNED/, 'INSUFFICIENT_LIQUIDITY_BURNED: burning this much liquidity returns nothing; remove a larger amount'],
    [/INSUFFICIENT_LIQUIDITY/, 'INSUFFICIENT_LIQUIDITY: the pool cannot fill a trade of this size; trade less or add liquidity first'],
    [/INSUFFICIENT_A_AMOUNT|INSUFFICIENT_B_AMOUNT/, 'The pool ratio gives less of one token than its _min floor (the price moved or the floors are too tight); quote again or lower the _min values'],
    [/TRANSFER_FROM_FAILED/, 'TRANSFER_FROM_FAILED: the router could not take the tokens from the wallet (balance or allowance too low); check the wallet balance'],
    [/EXPIRED/, 'EXPIRED: the deadline passed before the transaction was mined; send it again with a later deadline'],
    [/PAIR_NOT_FOUND/, 'The pair does not exist yet (getPair returns the zero address); create it by adding liquidity first'],
    [/IDENTICAL_ADDRESSES/, 'The two tokens are the same; give two different tokens'],
    [/INVALID_PATH/, 'The swap path does not start or end with WNATIVE as this route needs'],
    [/AmmPair: K\b/, 'The pool refused the trade (AmmPair: K): a token charges a transfer fee the quote did not allow for; retry, the fee-supporting router method is then used'],
    [/ETH_TRANSFER_FAILED/, 'The receiver did not accept the native coin; choose a receiver that can'],
    [/FEE_TOO_HIGH/, 'FEE_TOO_HIGH: buyingFee and sellingFee are at most 2500 basis points (25%)'],
    [/FEE_ADDRESS_REQUIRED/, 'FEE_ADDRESS_REQUIRED: a token with a buying or selling fee needs a feeAddress'],
    [/DECIMALS_OUT_OF_RANGE/, 'DECIMALS_OUT_OF_RANGE: decimals must be 0 to 18'],
    [/insufficient funds/i, 'insufficient funds: the wallet balance is below the value sent; fund the wallet or send less'],
    [/nonce too low/i, 'nonce too low: a transaction with this nonce already landed; send again'],
    [/replacement transaction underpriced/i, 'replacement transaction underpriced: another transaction of this wallet holds that nonce; wait for it and retry'],
]

const ERRORS_ABI = platformTokenAbi.filter((item) => item.type === 'error')

/** Revert data found anywhere in an error's cause chain. */
export function revertData(err: unknown): Hex | undefined {
    let current: any = err
    for (let depth = 0; current && depth < 10; depth++) {
        const data = typeof current.data === 'object' && current.data !== null ? current.data.data : current.data
        if (typeof data === 'string' && isHex(data) && data.length >= 10) return data as Hex
        current = current.cause
    }
    return undefined
}

/** The revert reason in words: Error(string)'s text, or a custom error's name and arguments. */
export function decodeRevert(data: Hex): string {
    try {
        // viem adds Error(string) and Panic(uint256) to any ABI it decodes errors with.
        const decoded = decodeErrorResult({ abi: ERRORS_ABI as Abi, data }) as { errorName: string; args?: readonly unknown[] }
        if (decoded.errorName === 'Error') return String(decoded.args?.[0] ?? '')
        if (decoded.errorName === 'Panic') return `panic ${String(decoded.args?.[0])}`
        return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`
    } catch {
        return `custom error ${data.slice(0, 10)}`
    }
}

/** Everything the node said, flattened: viem keeps the node's own words in `details`. */
function nodeMessage(err: unknown): string {
    const parts: string[] = []
    let current: any = err
    for (let depth = 0; current && depth < 10; depth++) {
        if (typeof current.details === 'string') parts.push(current.details)
        if (typeof current.shortMessage === 'string') parts.push(current.shortMessage)
        else if (typeof current.message === 'string') parts.push(current.message)
        current = current.cause
    }
    return parts.join(' | ')
}

/** A failure that is the node's, not the caller's: unreachable, timed out, or answering garbage. */
export function isNodeUnavailable(err: unknown): boolean {
    const text = nodeMessage(err)
    return /HTTP request failed|fetch failed|ECONNREFUSED|ECONNRESET|timed out|TimeoutError|socket hang up/i.test(text)
}

/** The caller-facing error of a failed simulation, send or mined transaction. */
export function explainChainError(err: unknown, prefix = ''): HttpError {
    if (err instanceof HttpError) return err
    const data = revertData(err)
    const reason = data ? decodeRevert(data) : undefined
    if (reason?.startsWith('ERC20InsufficientBalance')) {
        return new HttpError(400, `${prefix}insufficient token balance: ${reason}; the wallet holds less than the amount`)
    }
    if (reason?.startsWith('ERC20InsufficientAllowance')) {
        return new HttpError(400, `${prefix}TRANSFER_FROM_FAILED: allowance too low (${reason})`)
    }
    const text = reason ?? nodeMessage(err)
    for (const [pattern, advice] of ADVICE) {
        if (pattern.test(text)) return new HttpError(400, prefix + advice)
    }
    if (data || /revert/i.test(text)) {
        return new HttpError(400, `${prefix}execution reverted: ${reason ?? 'no reason given'}; the contract rejected the call`)
    }
    if (isNodeUnavailable(err)) return new HttpError(503, `${prefix}the chain node is unavailable; retry later`)
    if (err instanceof BaseError) return new HttpError(502, `${prefix}the chain node refused the request: ${err.shortMessage}`)
    throw err
}
