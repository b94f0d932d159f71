import { Asset, Finality } from '../config'
import { KeyRole } from '../keys'
import { ChainName, Family } from '../registry'

/**
 * What the engine needs from a network. The engine never looks inside a transaction or an
 * address: an adapter for BITCOIN, TRON or SOLANA implements this interface and the lifecycle,
 * the idempotent sender and the refund path work unchanged. Amounts are base units.
 */

/** A deposit address the monitor watches, and the one asset that counts there. */
export interface DepositWatch {
    swapId: string
    address: string
    asset: Asset
}

/** A transfer into a watched address, as seen in a block. */
export interface DepositSeen {
    swapId: string
    txHash: string
    amount: bigint
    blockNumber: bigint
    blockHash: string
    blockTime: Date
}

export interface ChainHead {
    number: bigint
    time: Date
}

export type DepositCheck =
    | { state: 'final'; confirmations: number }
    | { state: 'pending'; confirmations: number }
    /** Still in the chain but in another block (a reorg moved it): the new place. */
    | { state: 'moved'; blockNumber: bigint; blockHash: string }
    /** No longer in the chain (a reorg dropped it). */
    | { state: 'orphaned' }

/** An outgoing transfer. amount 'all' sweeps a coin balance minus the network fee. */
export interface TransferRequest {
    from: KeyRole
    to: string
    asset: Asset
    amount: bigint | 'all'
}

/** A signed transaction, ready to broadcast any number of times. */
export interface SignedTransfer {
    from: string
    hash: string
    raw: string
    /** Account sequence where the chain has one (EVM nonce); null for UTXO or blockhash-bound chains. */
    nonce: number | null
    amount: bigint
}

export type BroadcastResult =
    | { kind: 'accepted' }
    /** The node refused it for good: it cannot land as signed (e.g. the sender cannot pay the fee). */
    | { kind: 'rejected'; reason: string; insufficientFunds: boolean }
    /** No clear answer (network error, node busy): rebroadcast the same bytes later. */
    | { kind: 'uncertain'; reason: string }

export type TxState =
    | { kind: 'confirmed'; blockNumber: bigint }
    | { kind: 'reverted'; blockNumber: bigint }
    /** Known to the node, not mined yet. */
    | { kind: 'pending' }
    /** Unknown to the node but could still land: rebroadcast the same bytes. */
    | { kind: 'missing' }
    /** Can never land (its nonce was used by another transaction): a new one may be signed. */
    | { kind: 'dead' }

/** A coin sweep ('all') whose balance does not even cover the network fee. */
export class InsufficientForFeeError extends Error {}

/** Reserves of a Uniswap V2 pair, in the order the tokens were asked for. */
export interface PairReserves {
    pair: string
    reserveA: bigint
    reserveB: bigint
    blockNumber: bigint
}

export interface ChainAdapter {
    readonly chain: ChainName
    readonly family: Family
    /** Widest block range one scan may cover. */
    readonly maxScanBlocks: bigint

    /** The address in the chain's canonical form, or undefined when it is not a valid address there. */
    normalizeAddress(address: string): string | undefined
    deriveAddress(role: KeyRole): Promise<string>
    head(): Promise<ChainHead>
    /** Transfers of each watch's asset into its address within [from, to]. */
    scanDeposits(watches: DepositWatch[], from: bigint, to: bigint): Promise<DepositSeen[]>
    checkDeposit(deposit: { txHash: string; blockNumber: bigint; blockHash: string }, finality: Finality): Promise<DepositCheck>
    balance(address: string, asset: Asset): Promise<bigint>
    /** The network fee one transfer of `asset` from `from` to `to` would cost now, in the chain's coin (an upper bound). */
    transferFee(asset: Asset, from: string, to: string): Promise<bigint>
    /** Signs (never broadcasts). reservedSequences are sequence numbers already held by stored, unfinished transactions of the sender. */
    signTransfer(request: TransferRequest, reservedSequences: number[]): Promise<SignedTransfer>
    broadcast(raw: string): Promise<BroadcastResult>
    inspect(tx: { hash: string; from: string; nonce: number | null }): Promise<TxState>
    /** Networks with our AMM: the reserves of the pair of two tokens on a factory, undefined when there is no pair. */
    pairReserves?(factory: string, tokenA: string, tokenB: string): Promise<PairReserves | undefined>
}
