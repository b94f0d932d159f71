import { OUTPUT_BYTES, OutputKind } from './address'

/** P2WPKH transaction size and fee arithmetic in integers, rates in sat/kvB so fractional sat/vB survive: docs/bridge/networks.md#bitcoin */

/**
 * One P2WPKH input in BIP-141 weight units: outpoint 36 + empty scriptSig 1 + sequence 4, ×4 = 164; witness: item count 1
 * + signature 1+72 (the longest DER plus sighash; ours are low-R, 71 at most, so never larger) + key 1+33 = 108.
 */
export const P2WPKH_INPUT_WEIGHT = 272
/** Bitcoin Core's default minimum relay fee, 1 sat/vB. */
export const MIN_RELAY_FEE_RATE = 1000n

function varIntBytes(n: number): number {
    return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5
}

/** Non-witness bytes (version, locktime, the counts, the outputs) weigh 4 each, the segwit marker and flag 2, each input 272. */
export function p2wpkhSpendWeight(inputs: number, outputs: OutputKind[]): number {
    const base = 4 + 4 + varIntBytes(inputs) + varIntBytes(outputs.length) + outputs.reduce((sum, kind) => sum + OUTPUT_BYTES[kind], 0)
    return base * 4 + 2 + inputs * P2WPKH_INPUT_WEIGHT
}

export function vsizeOfWeight(weight: number): number {
    return Math.ceil(weight / 4)
}

export function p2wpkhSpendVsize(inputs: number, outputs: OutputKind[]): number {
    return vsizeOfWeight(p2wpkhSpendWeight(inputs, outputs))
}

/** The fee of `vsize` virtual bytes at `rate` sat/kvB, rounded up. */
export function feeFor(vsize: number, rate: bigint): bigint {
    return (BigInt(vsize) * rate + 999n) / 1000n
}

/** What adding one P2WPKH input costs at `rate`: an input worth no more than this is not worth spending. */
export function inputCost(rate: bigint): bigint {
    return (BigInt(P2WPKH_INPUT_WEIGHT / 4) * rate + 999n) / 1000n
}

/**
 * A sat/vB rate as Esplora's /fee-estimates writes it (a JSON number such as 12.345 or 1.0e-3) as
 * sat/kvB, rounded up, without going through a float.
 */
export function parseSatPerVbyte(text: string): bigint {
    const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
    if (!match) throw new Error(`not a fee rate: ${text}`)
    const [, whole, fraction = '', exponent = '0'] = match
    // digits × 10^(exp - fraction.length) sat/vB = digits × 10^(exp - fraction.length + 3) sat/kvB
    const digits = BigInt(whole + fraction)
    const shift = Number(exponent) - fraction.length + 3
    if (shift >= 0) return digits * 10n ** BigInt(shift)
    const divisor = 10n ** BigInt(-shift)
    return (digits + divisor - 1n) / divisor
}

/** A sat/kvB rate as a decimal sat/vB string, for logs and errors. */
export function formatSatPerVbyte(rate: bigint): string {
    const whole = rate / 1000n
    const fraction = (rate % 1000n).toString().padStart(3, '0').replace(/0+$/, '')
    return fraction ? `${whole}.${fraction}` : whole.toString()
}
