import { InsufficientForFeeError, UnpayableTransferError } from '../adapter'
import { DUST_LIMIT, OutputKind, ParsedAddress } from './address'
import { feeFor, formatSatPerVbyte, inputCost, MIN_RELAY_FEE_RATE, p2wpkhSpendVsize } from './fees'

/** Coin selection for a payment (exact amount, fee on top, change back) and for a sweep (every coin worth spending, one output): docs/bridge/networks.md#bitcoin */

/** An output that is ours to spend. confirmations 0: in the mempool. */
export interface Coin {
    txid: string
    vout: number
    value: bigint
    confirmations: number
}

export interface PlannedOutput {
    script: Uint8Array
    value: bigint
    kind: OutputKind
}

export interface SpendPlan {
    inputs: Coin[]
    outputs: PlannedOutput[]
    fee: bigint
    /** Upper bound of the signed transaction's virtual size, which the fee pays for. */
    vsize: number
    /** What the recipient receives. */
    amount: bigint
    change: bigint
}

/** Most inputs one transaction takes: 500 × 68 vB stays far below the 100 000 vB standardness limit. */
export const MAX_INPUTS = 500

/** An output below the dust limit: nodes would not relay the transaction. */
export class DustOutputError extends UnpayableTransferError {}

/** The sender's coins do not cover the amount and the fee (a subclass of the sweep's error, so callers handling that retry on this too). */
export class InsufficientFundsError extends InsufficientForFeeError {}

export const coinKey = (c: { txid: string; vout: number }) => `${c.txid}:${c.vout}`

function total(coins: Coin[]): bigint {
    return coins.reduce((sum, c) => sum + c.value, 0n)
}

/** Largest first; confirmed before unconfirmed. */
function preference(a: Coin, b: Coin): number {
    if ((a.confirmations > 0) !== (b.confirmations > 0)) return a.confirmations > 0 ? -1 : 1
    return a.value === b.value ? 0 : a.value > b.value ? -1 : 1
}

/**
 * `forced` coins are spent whatever the amount: the inputs of an earlier attempt this one
 * replaces, so that at most one of the two can ever land. `outbid` is the fee of the replaced
 * transactions still in the mempool: BIP-125 (rules 3 and 4) makes nodes take the replacement
 * only if it pays at least that plus the minimum relay fee for its own size.
 */
export function planPayment(opts: {
    coins: Coin[]
    forced?: Coin[]
    to: ParsedAddress
    amount: bigint
    change: ParsedAddress
    rate: bigint
    outbid?: bigint
}): SpendPlan {
    const { to, amount, change, rate } = opts
    const least = (vsize: number) => leastFee(vsize, rate, opts.outbid)
    if (amount < DUST_LIMIT[to.kind]) {
        throw new DustOutputError(`${amount} sat to a ${to.kind} output is below its dust limit of ${DUST_LIMIT[to.kind]} sat`)
    }
    const forced = opts.forced ?? []
    const taken = new Set(forced.map(coinKey))
    const candidates = opts.coins.filter((c) => !taken.has(coinKey(c))).sort(preference)
    const inputs = [...forced]
    for (let next = 0; ; next++) {
        if (inputs.length > 0) {
            const sum = total(inputs)
            const withChange = p2wpkhSpendVsize(inputs.length, [to.kind, change.kind])
            const feeWithChange = least(withChange)
            const changeValue = sum - amount - feeWithChange
            if (changeValue >= DUST_LIMIT[change.kind]) {
                return {
                    inputs, fee: feeWithChange, vsize: withChange, amount, change: changeValue,
                    outputs: [{ script: to.script, value: amount, kind: to.kind }, { script: change.script, value: changeValue, kind: change.kind }],
                }
            }
            const alone = p2wpkhSpendVsize(inputs.length, [to.kind])
            if (sum - amount >= least(alone)) {
                return { inputs, fee: sum - amount, vsize: alone, amount, change: 0n, outputs: [{ script: to.script, value: amount, kind: to.kind }] }
            }
        }
        if (next >= candidates.length || inputs.length >= MAX_INPUTS) {
            const have = total(inputs) + candidates.slice(next).reduce((s, c) => s + c.value, 0n)
            throw new InsufficientFundsError(
                `the sender's spendable coins (${have} sat in ${inputs.length + candidates.length - next} outputs) do not cover ` +
                `${amount} sat plus the fee at ${formatSatPerVbyte(rate)} sat/vB`
            )
        }
        inputs.push(candidates[next])
    }
}

export function planSweep(opts: { coins: Coin[]; forced?: Coin[]; to: ParsedAddress; rate: bigint; outbid?: bigint }): SpendPlan {
    const { to, rate } = opts
    const forced = opts.forced ?? []
    const taken = new Set(forced.map(coinKey))
    const worth = inputCost(rate)
    const inputs = [...forced, ...opts.coins.filter((c) => !taken.has(coinKey(c)) && c.value > worth).sort(preference)].slice(0, Math.max(MAX_INPUTS, forced.length))
    const sum = total(inputs)
    const vsize = p2wpkhSpendVsize(Math.max(inputs.length, 1), [to.kind])
    const fee = leastFee(vsize, rate, opts.outbid)
    const amount = sum - fee
    if (inputs.length === 0 || amount < DUST_LIMIT[to.kind]) {
        throw new InsufficientForFeeError(
            `${sum} sat in ${inputs.length} spendable outputs does not cover the ${fee} sat network fee ` +
            `(${formatSatPerVbyte(rate)} sat/vB) and the ${DUST_LIMIT[to.kind]} sat dust limit`
        )
    }
    return { inputs, fee, vsize, amount, change: 0n, outputs: [{ script: to.script, value: amount, kind: to.kind }] }
}

function leastFee(vsize: number, rate: bigint, outbid: bigint | undefined): bigint {
    const atRate = feeFor(vsize, rate)
    if (!outbid) return atRate
    const replacing = outbid + feeFor(vsize, MIN_RELAY_FEE_RATE)
    return replacing > atRate ? replacing : atRate
}
