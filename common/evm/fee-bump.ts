import { Hex, parseTransaction, PublicClient } from 'viem'

/**
 * The fee bump of a stuck EVM transaction (docs/sending.md): when its fee cap is under the base
 * fee of the latest block, a copy at the same nonce (same to, value, data, gas) is signed with
 * both fees raised by at least an eighth and one wei (geth refuses a replacement that raises
 * either by less than 10%; anvil one that raises nothing), and the fee cap to at least twice the
 * base fee plus the tip, as a new transaction is priced. Never above the caller's cap.
 */

export interface Replacement {
    to: Hex | null
    value: bigint
    data: Hex
    gas: bigint
    nonce: number
    chainId: number
    maxFeePerGas: bigint
    maxPriorityFeePerGas: bigint
}

const raise = (v: bigint) => v + v / 8n + 1n

export type BumpDecision = { kind: 'replace'; tx: Replacement } | { kind: 'keep' } | { kind: 'capped'; needed: bigint; cap: bigint }

/**
 * Whether the signed `raw` is priced out by the latest block's base fee, and the transaction to
 * sign in its place if so; `cap` (wei) is the highest fee cap a replacement may have: past it,
 * bumping stops and the caller tells the operator.
 */
export async function feeBump(client: PublicClient, raw: string, cap: bigint): Promise<BumpDecision> {
    const old = parseTransaction(raw as Hex)
    if (old.type !== 'eip1559' || old.nonce === undefined || old.chainId === undefined) return { kind: 'keep' }
    const baseFee = (await client.getBlock({ blockTag: 'latest' })).baseFeePerGas ?? 0n
    const oldFee = old.maxFeePerGas ?? 0n
    if (oldFee >= baseFee) return { kind: 'keep' }
    const tip = await client.request({ method: 'eth_maxPriorityFeePerGas' }).then((v) => BigInt(v), () => 1_000_000_000n)
    const maxPriorityFeePerGas = [raise(old.maxPriorityFeePerGas ?? 0n), tip].reduce((a, b) => (a > b ? a : b))
    const maxFeePerGas = [raise(oldFee), baseFee * 2n + maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b))
    if (maxFeePerGas > cap) return { kind: 'capped', needed: maxFeePerGas, cap }
    return {
        kind: 'replace',
        tx: { to: old.to ?? null, value: old.value ?? 0n, data: old.data ?? '0x', gas: old.gas!, nonce: old.nonce, chainId: old.chainId, maxFeePerGas, maxPriorityFeePerGas },
    }
}
