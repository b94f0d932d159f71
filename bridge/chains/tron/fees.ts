/** What TRON transfers cost, bandwidth and energy burned as TRX, quoted as upper bounds: docs/bridge/networks.md#tron */

export const USDT_ENERGY_TO_HOLDER = 64_285n
export const USDT_ENERGY_TO_NEW_HOLDER = 130_285n

/** Room java-tron adds to a transaction's size for each contract's result. */
export const RESULT_BYTES = 64

/**
 * Upper bounds of the bandwidth of the transfers signed here. A TRX transfer is ≈270 bytes and a
 * TRC-20 transfer ≈345 bytes with the largest amount, fee limit and millisecond times that fit
 * in these varints until the year 2109 (tron-units checks both against built transactions).
 */
export const TRX_TRANSFER_BYTES = 280
export const TRC20_TRANSFER_BYTES = 360

export interface TronPrices {
    /** sun per byte of bandwidth */
    bandwidth: bigint
    /** sun per unit of energy */
    energy: bigint
    /** burned instead of bandwidth by a transfer that creates an account */
    createAccount: bigint
    /** charged by a TRX transfer to an account that does not exist yet */
    newAccount: bigint
    freeBandwidth: bigint
    maxFeeLimit: bigint
}

/** Mainnet values, for parameters a node does not list. */
const DEFAULT_PRICES: TronPrices = {
    bandwidth: 1_000n, energy: 100n, createAccount: 100_000n, newAccount: 1_000_000n, freeBandwidth: 600n, maxFeeLimit: 15_000_000_000n,
}

export function pricesOf(parameters: Map<string, bigint>): TronPrices {
    const get = (key: string, fallback: bigint) => parameters.get(key) ?? fallback
    return {
        bandwidth: get('getTransactionFee', DEFAULT_PRICES.bandwidth),
        energy: get('getEnergyFee', DEFAULT_PRICES.energy),
        createAccount: get('getCreateAccountFee', DEFAULT_PRICES.createAccount),
        newAccount: get('getCreateNewAccountFeeInSystemContract', DEFAULT_PRICES.newAccount),
        freeBandwidth: get('getFreeNetLimit', DEFAULT_PRICES.freeBandwidth),
        maxFeeLimit: get('getMaxFeeLimit', DEFAULT_PRICES.maxFeeLimit),
    }
}

function varintLength(n: number): number {
    let length = 1
    while (n >= 0x80) {
        n = Math.floor(n / 0x80)
        length++
    }
    return length
}

/** Bandwidth of a transaction as java-tron counts it: its protobuf with `signatures` signatures, plus RESULT_BYTES. */
export function bandwidthOf(rawDataHex: string, signatures = 1): number {
    const raw = rawDataHex.length / 2
    // field 1 (raw_data) and each field 2 (a 65-byte signature), length-delimited
    return 1 + varintLength(raw) + raw + signatures * (1 + 1 + 65) + RESULT_BYTES
}

/** Upper bound of a TRX transfer's fee, in sun. */
export function trxTransferFee(prices: TronPrices, recipientExists: boolean): bigint {
    const bandwidth = BigInt(TRX_TRANSFER_BYTES) * prices.bandwidth
    // Creating the recipient replaces the bandwidth charge; counting both keeps the bound safe either way.
    return recipientExists ? bandwidth : bandwidth + prices.createAccount + prices.newAccount
}

export function usdtEnergy(recipientHolds: boolean): bigint {
    return recipientHolds ? USDT_ENERGY_TO_HOLDER : USDT_ENERGY_TO_NEW_HOLDER
}

/** Upper bound of a USDT transfer's fee, in sun: its energy and its bandwidth, all burned. */
export function usdtTransferFee(prices: TronPrices, recipientHolds: boolean): bigint {
    return usdtEnergy(recipientHolds) * prices.energy + BigInt(TRC20_TRANSFER_BYTES) * prices.bandwidth
}

/**
 * What a transaction of `bytes` burns for bandwidth from an account with `available` bytes of
 * free plus staked bandwidth left: nothing when they cover it, else every byte (java-tron takes
 * bandwidth whole from one source, never part free and part burned).
 */
export function bandwidthBurn(bytes: number, available: bigint, prices: TronPrices): bigint {
    return available >= BigInt(bytes) ? 0n : BigInt(bytes) * prices.bandwidth
}
