import { Asset } from '../config'
import { KeyRole } from '../keys'
import { ChainName, Family } from '../registry'
import { BroadcastResult, SignedTx, TxState } from '../../common/sending/chain'
import { Finality } from './finality'

/** How a network answers a broadcast and where a stored transaction stands: the durable sender's terms. */
export type { BroadcastResult, Settled, TxState } from '../../common/sending/chain'

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
    /** The chain's head when the swap was created: nothing before it can be the deposit. */
    fromBlock: bigint
}

/** A transfer into a watched address, as seen in a block. */
export interface DepositSeen {
    swapId: string
    /**
     * The transaction that moved the funds in. Null when the chain shows the funds arrived (a
     * coin balance that grew) but the node cannot say which transaction did it: a contract's
     * internal transfer on a node without tracing.
     */
    txHash: string | null
    amount: bigint
    blockNumber: bigint
    blockHash: string
    blockTime: Date
}

/**
 * scanDeposits read part of what it was asked: `seen` is what it found in the parts it could read.
 * `unread` names the swaps whose addresses it could not read (they are not expired on that scan);
 * `rescan` says a part of the block range itself was not read (a log query failed) and the range
 * must be scanned again, while a balance read that failed needs no rescan: a balance is cumulative,
 * the next scan sees the same coin.
 */
export class PartialScanError extends Error {
    constructor(readonly seen: DepositSeen[], readonly unread: Set<string>, readonly rescan: boolean, readonly causes: unknown[]) {
        super(`deposit scan incomplete: ${unread.size} address(es) unread${rescan ? ', range to scan again' : ''}`)
    }
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
    /**
     * With amount 'all': sweep only the swap's credited deposit, not whatever else reached the
     * address (an extra deposit stays there and is refunded on its own:
     * docs/bridge/lifecycle.md#extra-and-late-deposits). Account chains sweep at most `amount`
     * (less the fee) of the balance; BITCOIN spends only the outputs of `txHash` to the address.
     */
    only?: { amount: bigint; txHash: string | null }
}

/** A signed transfer, ready to broadcast any number of times; `amount` is what it moves (base units). */
export interface SignedTransfer extends SignedTx {
    amount: bigint
}

/** A coin sweep ('all') whose balance does not even cover the network fee. */
export class InsufficientForFeeError extends Error {}

/**
 * A transfer the network's own rules forbid as asked, whatever the balances: an output below
 * Bitcoin's dust limit, a Solana account left below its rent-exempt minimum. Thrown at signing;
 * nothing was stored or sent.
 */
export class UnpayableTransferError extends Error {}

/** A pool trade the node says would revert now (the pool moved past amountOutMin, no liquidity). */
export class PoolTradeError extends Error {}

/**
 * A trade of exactly amountIn on one of our AMM pools through its router, for at least
 * amountOutMin, paid to `recipient`. coinIn/coinOut: that side is the chain's coin, traded
 * through the router's …ETH… methods (the path then names the wrapped coin).
 */
export interface PoolSwapRequest {
    from: KeyRole
    router: string
    pair: string
    path: string[]
    coinIn: boolean
    coinOut: boolean
    amountIn: bigint
    amountOutMin: bigint
    recipient: string
}

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
    /**
     * Every transfer of the watch's asset into its address within [watch.fromBlock, to], at most
     * `limit` (the newest): the transfers making up a late deposit. For chains whose scanDeposits
     * finds only part of them (EVM: a coin's first arrival); without it, scanDeposits is used
     * (BITCOIN lists each unspent output's transaction, TRON and SOLANA each transaction).
     */
    transfersInto?(watch: DepositWatch, to: bigint, limit: number): Promise<DepositSeen[]>
    /**
     * A deposit without a transaction hash is checked by its block: still canonical, and final.
     * `amount` (base units) lets a chain whose finality is a depth ask more of larger amounts (BITCOIN).
     */
    checkDeposit(deposit: { txHash: string | null; blockNumber: bigint; blockHash: string; amount?: bigint }, finality: Finality): Promise<DepositCheck>
    balance(address: string, asset: Asset): Promise<bigint>
    /** Many balances at once where the node allows batching (the late-deposit watch); each read succeeds or fails alone. */
    balances?(requests: { address: string; asset: Asset }[], blockNumber?: bigint): Promise<PromiseSettledResult<bigint>[]>
    /** The hash of the canonical block at a height (a late deposit dated by the block whose balance showed it). */
    blockHash?(blockNumber: bigint): Promise<string>
    /** The network fee one transfer of `asset` from `from` to `to` would cost now, in the chain's coin (an upper bound). */
    transferFee(asset: Asset, from: string, to: string): Promise<bigint>
    /** Signs (never broadcasts). reservedSequences are sequence numbers already held by stored, unfinished transactions of the sender. */
    signTransfer(request: TransferRequest, reservedSequences: number[]): Promise<SignedTransfer>
    broadcast(raw: string): Promise<BroadcastResult>
    /**
     * Where a stored transaction stands; a mined one is also judged against `finality`. `raw` is the
     * stored signed bytes: chains without account nonces prove a transaction dead from its content
     * (spent inputs, an expired blockhash or expiration time).
     */
    inspect(tx: { hash: string; from: string; nonce: number | null; raw: string }, finality: Finality): Promise<TxState>
    /**
     * Account chains with a fee market (EVM): a copy of a stored transaction of `role` at its
     * nonce with fees raised by the fee-bump rule (docs/sending.md), or undefined when it is not
     * priced out or the fee cap is reached. Chains without it are never bumped.
     */
    signReplacement?(tx: { raw: string; from: string; hash: string }, role: KeyRole): Promise<SignedTx | undefined>
    /**
     * Account chains (EVM): how many transactions `address` has sent, as the node counts them in its
     * latest block and with its pool (its nonce at `latest` and `pending`). The ledger guard compares
     * them with the stored transactions before a vault signs (engine/ledger-guard.ts).
     */
    sentCount?(address: string): Promise<{ latest: number; pending: number }>
    /**
     * Chains without account nonces (BITCOIN, TRON, SOLANA): the ids, as bridge_tx.hash stores them,
     * of transactions `address` sent (spends from it, signs as fee payer or owner) among the newest
     * `limit` the node lists for it, newest first. Transfers into it are not sends. The ledger guard
     * compares them with the stored transactions before a vault signs (engine/ledger-guard.ts).
     */
    sentTransactions?(address: string, limit: number): Promise<string[]>
    /**
     * What a known, mined transaction paid `address` in `asset`, as a deposit: for chains whose
     * scanDeposits cannot see a transfer once its funds moved on (Bitcoin scans unspent outputs, and
     * a vault spends its outputs). Undefined when the transaction is unknown, unmined or paid nothing there.
     */
    transferTo?(txHash: string, address: string, asset: Asset): Promise<DepositSeen | undefined>
    /** Networks with our AMM: the reserves of the pair of two tokens on a factory, undefined when there is no pair. */
    pairReserves?(factory: string, tokenA: string, tokenB: string): Promise<PairReserves | undefined>
    /** Networks with our AMM: what `spender` may take of `owner`'s token. */
    allowance?(token: string, owner: string, spender: string): Promise<bigint>
    /** Networks with our AMM: signs an unlimited approval of `token` for `spender` (the router). */
    signApprove?(request: { from: KeyRole; token: string; spender: string }, reservedSequences: number[]): Promise<SignedTransfer>
    /** Networks with our AMM: signs a router trade; throws PoolTradeError when it would revert now. */
    signPoolSwap?(request: PoolSwapRequest, reservedSequences: number[]): Promise<SignedTransfer>
    /** What a mined pool trade delivered to its recipient, from its receipt. */
    poolSwapOutput?(hash: string, request: PoolSwapRequest): Promise<bigint>
}
