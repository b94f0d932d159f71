import { OUTPUT_BYTES, OutputKind } from './address'

/**
 * Transaction size and fee arithmetic for P2WPKH spends, in integers only. Fee rates are
 * satoshi per 1000 virtual bytes (sat/kvB, Bitcoin Core's unit; 1 sat/vB = 1000 sat/kvB) so that
 * fractional sat/vB estimates survive without floating point.
 *
 * Weight of a transaction spending n P2WPKH inputs (BIP-141: non-witness bytes count 4, witness
 * bytes 1; vsize = ceil(weight / 4)):
 *   version 4 + locktime 4 + input count + output count      ×4
 *   segwit marker and flag                                    2
 *   per input: outpoint 36 + empty scriptSig 1 + sequence 4   ×4 = 164
 *              witness: item count 1 + signature 1+72 + key 1+33 = 108   (272 WU = 68 vB)
 *   per output: 8 + 1 + script (OUTPUT_BYTES)                 ×4
 * 72 bytes is the longest DER signature plus sighash byte; our signatures are low-R (71 at
 * most), so a signed transaction is never larger than this estimate. One input, one P2WPKH
 * output: 42 + 272 + 124 = 438 WU = 110 vB.
 */

export const P2WPKH_INPUT_WEIGHT = 272
/** Bitcoin Core's default minimum relay fee, 1 sat/vB. */
export const MIN_RELAY_FEE_RATE = 1000n

function varIntBytes(n: number): number {
    return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5
}

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
