import { Pool } from 'pg'
import { Logger } from '../../common/logger'
import { DurableSender, MINED, SendResult as CoreSendResult } from '../../common/sending/sender'
import { ChainAdapter, SignedTransfer, TransferRequest, TxState } from '../chains/adapter'
import { Finality } from '../chains/finality'
import { LOCK_SENDER, LockManager } from '../db'
import { KeyRole } from '../keys'
import { BridgeTransactions, Purpose, TxRecord } from '../store/transactions'
import { OperatorHoldError } from './hold'
import { LedgerGuard } from './ledger-guard'

/**
 * The bridge's transactions through the durable sender (docs/sending.md), stored in bridge_tx by
 * swap and purpose (store/transactions.ts): one live per swap and purpose, and a nonce taken by no
 * transaction of ours holds the swap for an operator (OperatorHoldError). Before a vault signs at a
 * new nonce, the ledger guard (ledger-guard.ts) checks that its node knows no transaction of it the
 * ledger does not.
 */

export { MINED } from '../../common/sending/sender'

/** What a bridge_tx row says about a transaction besides its bytes: sender role, counterparty, asset symbol. */
export interface TxMeta {
    from: KeyRole
    to: string
    asset: string
}

export type SendResult = CoreSendResult<TxRecord>

export class Sender {
    private readonly core: DurableSender<TxRecord>
    private readonly transactions: BridgeTransactions
    private readonly guard: LedgerGuard

    /** guardWindow: the newest transactions of a vault without account nonces the ledger guard reads (BRIDGE_LEDGER_GUARD_WINDOW). */
    constructor(pool: Pool, locks: LockManager, private readonly log: Logger, guardWindow?: number) {
        this.transactions = new BridgeTransactions(pool)
        this.guard = new LedgerGuard(pool, this.transactions, log, { window: guardWindow })
        this.core = new DurableSender(this.transactions, locks, LOCK_SENDER, log, (tx) => {
            throw new OperatorHoldError(
                `nonce ${tx.nonce} of ${tx.from} on ${tx.chain} was used at a final block by no transaction of ours; ` +
                `the ${tx.purpose} ${tx.hash} never landed and is not signed again`,
                { chain: tx.chain, from: tx.from, nonce: tx.nonce, tx_hash: tx.hash, purpose: tx.purpose }
            )
        })
    }

    /** The latest live transaction of a swap for a purpose. */
    live(swapId: string, purpose: Purpose): Promise<TxRecord | undefined> {
        return this.transactions.live(swapId, purpose)
    }

    byId(id: string): Promise<TxRecord> {
        return this.transactions.byId(id)
    }

    /**
     * A transaction proven unable to land by a step's own reading (reverted in a final block), with
     * why: the next attempt for its purpose may sign anew.
     */
    markDead(id: string, error: string): Promise<void> {
        return this.transactions.markDead(id, error)
    }

    /**
     * Signs, stores and broadcasts a transfer for (swap, purpose), unless a live one exists, which
     * is then (re)broadcast and returned instead. Every purpose allows one live transaction per
     * swap except gas top-ups, which may take several.
     */
    async send(adapter: ChainAdapter, swapId: string, purpose: Purpose, request: TransferRequest): Promise<SendResult> {
        return this.sendSigned(adapter, swapId, purpose, { from: request.from, to: request.to, asset: request.asset.symbol }, (held) =>
            adapter.signTransfer(request, held)
        )
    }

    /** send() for any transaction the adapter signs (a pool trade, an approval): the same rules, another signer. */
    async sendSigned(
        adapter: ChainAdapter,
        swapId: string,
        purpose: Purpose,
        meta: TxMeta,
        sign: (reservedSequences: number[]) => Promise<SignedTransfer>
    ): Promise<SendResult> {
        const from = await adapter.deriveAddress(meta.from)
        return this.core.send(adapter, from, {
            existing: purpose === 'gather_gas' ? undefined : () => this.live(swapId, purpose),
            // Under the vault's signing lock: no other replica stores or signs from it meanwhile.
            sign: async (held) => {
                if (meta.from.kind === 'vault') await this.guard.check(adapter, from)
                return sign(held)
            },
            store: (signed) => this.transactions.insertSigned(swapId, purpose, adapter.chain, meta, signed),
        })
    }

    /**
     * Follows the transactions no step follows any more: beside them another of ours at their
     * nonce landed (an original its replacement beat, or the reverse), until the chain's final
     * state shows them dead. Each pass of the worker.
     */
    async followBesideLanded(adapterOf: (chain: string) => ChainAdapter): Promise<void> {
        for (const tx of await this.transactions.besideLanded(100)) {
            await this.core.track(adapterOf(tx.chain), tx, MINED).catch((err) => this.log.warn({ err, hash: tx.hash }, 'could not follow a transaction beside a landed one; trying again later'))
        }
    }

    /**
     * Where a stored transaction stands (DurableSender.track); a nonce taken by no transaction of
     * ours throws OperatorHoldError. The vault's transactions priced out by a base fee that stays
     * above their fee cap are replaced at their nonce (adapters with signReplacement: EVM); the
     * replacement is the swap's next attempt for the purpose, linked by `replaces`, and live()
     * returns it from then on.
     */
    async track(adapter: ChainAdapter, tx: TxRecord, finality: Finality): Promise<TxState> {
        const signReplacement = adapter.signReplacement?.bind(adapter)
        // Only the vault's key is at hand here; a deposit address's gather is not bumped (docs/sending.md).
        const vault = signReplacement && (await adapter.deriveAddress({ kind: 'vault' })).toLowerCase() === tx.from.toLowerCase()
        return this.core.track(adapter, tx, finality, vault ? {
            sign: (stuck) => signReplacement(stuck, { kind: 'vault' }),
            store: (stuck, signed) => this.transactions.insertReplacement(stuck, signed),
        } : undefined)
    }
}
