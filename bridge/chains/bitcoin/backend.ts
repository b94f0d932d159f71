/**
 * What the Bitcoin adapter reads from and sends to the network. Two implementations: Esplora's
 * REST API (esplora.ts; what Blockstream and mempool.space serve, and electrs next to one's own
 * node) and Bitcoin Core's JSON-RPC (bitcoind.ts). Heights are numbers (they fit), amounts are
 * satoshi as bigint, hashes and txids are lowercase hex in display (big-endian) order.
 */

export interface TxStatus {
    confirmed: boolean
    blockHeight?: number
    blockHash?: string
    /** Unix seconds of the block's header. */
    blockTime?: number
}

export interface Utxo {
    txid: string
    vout: number
    value: bigint
    status: TxStatus
}

export interface OutSpend {
    spent: boolean
    /** The spending transaction, when spent. */
    txid?: string
    status?: TxStatus
}

export interface TxInfo {
    txid: string
    vin: { txid: string; vout: number; isCoinbase: boolean; prevoutAddress?: string; prevoutValue?: bigint }[]
    vout: { value: bigint; address?: string; scriptHex: string }[]
    status: TxStatus
}

export interface BlockInfo {
    hash: string
    height: number
    /** Unix seconds. */
    time: number
}

/** Confirmation target (blocks) to fee rate (sat/kvB). */
export type FeeEstimates = Map<number, bigint>

/**
 * The node answered and refused the transaction; code is Bitcoin Core's RPC error code when the
 * backend reports one (-25 verify error, -26 rejected by policy or consensus, -27 already in chain,
 * -22 cannot be decoded). Anything else a backend throws is a transport failure: no answer.
 */
export class NodeRejection extends Error {
    constructor(readonly code: number | null, readonly reason: string) {
        super(reason)
    }
}

export interface BitcoinBackend {
    readonly kind: 'esplora' | 'bitcoind'
    /** The best block. */
    tip(): Promise<BlockInfo>
    /** Hash of the best chain's block at a height; undefined above the tip. */
    blockHash(height: number): Promise<string | undefined>
    /**
     * Outputs paying an address that no transaction the backend knows spends, confirmed or in its
     * mempool. A backend that cannot see the mempool reports confirmed ones only.
     */
    addressUtxos(address: string): Promise<Utxo[]>
    /** Undefined when the backend knows no such transaction (neither in the chain nor the mempool). */
    tx(txid: string): Promise<TxInfo | undefined>
    txStatus(txid: string): Promise<TxStatus | undefined>
    /** Whether an output is spent and by what; undefined when the output's transaction is unknown. */
    outspend(txid: string, vout: number): Promise<OutSpend | undefined>
    /**
     * The txids of transactions spending an output that paid `address`, among the newest `limit` the
     * backend lists for it, newest first (mempool before confirmed). Bitcoin Core sees only watched
     * addresses (watch).
     */
    sentFrom(address: string, limit: number): Promise<string[]>
    feeEstimates(): Promise<FeeEstimates>
    /** The txid, once the node accepted it (or already had it); NodeRejection when it refused. */
    broadcast(rawHex: string): Promise<string>
    /**
     * Backends that see only addresses they were told about (a Bitcoin Core wallet) start
     * following one here; rescanFrom: 'now', or a Unix time whose blocks are searched for its past.
     */
    watch?(address: string, rescanFrom: 'now' | number): Promise<void>
}
