import { setTimeout as sleep } from 'timers/promises'
import { LockManager } from '../../db/advisory-locks'
import { Logger } from '../logger'
import { SECOND_LOOK_MS, SecondLook } from '../second-look'
import { Finality, SignedTx, TxChain, TxState } from './chain'
import { StoredTx, TxTable } from './tx-table'

/**
 * Sign, store, broadcast, follow: the one way the bridge and the wallet platform send a
 * transaction (rules in docs/sending.md: stored before broadcast, given up only on final evidence
 * seen twice, one signer per address with nonces never reused).
 */

/** The finality of a transaction whose landing is enough: one confirmation. */
export const MINED: Finality = { confirmations: 1 }

/**
 * How long the newest transaction of ours at a nonce stays unmined before a priced-out one is
 * replaced: a base fee that spikes for a block or two is waited out, and replacements of one
 * nonce come at most this often.
 */
export const REPLACE_AFTER_MS = 20_000

export type SendResult<T> = { kind: 'sent'; tx: T } | { kind: 'rejected'; tx: T; insufficientFunds: boolean; reason: string }

/** One transaction to send: how to sign it, how to store it, and what may already stand for it. */
export interface SendPlan<T, S extends SignedTx> {
    /** A live stored transaction that already does this job: it is (re)broadcast instead, nothing is signed. */
    existing?: () => Promise<T | undefined>
    /** Signs (never broadcasts), skipping the nonces in `reservedNonces`. */
    sign: (reservedNonces: number[]) => Promise<S>
    /** Inserts the signed transaction with status 'signed'. */
    store: (signed: S) => Promise<T>
}

/** How a service replaces a stuck transaction at its nonce (docs/sending.md, fee bump). */
export interface ReplacePlan<T> {
    /** A copy of `tx` at its nonce with fees raised by the network's rule, or undefined when it is not priced out (or the fee cap is reached). */
    sign: (tx: T) => Promise<SignedTx | undefined>
    /** Inserts the replacement with status 'signed', linked to `tx` (its `replaces`). */
    store: (tx: T, signed: SignedTx) => Promise<T>
}

/**
 * What to do when a transaction's nonce was used at a final block by no transaction of ours:
 * throw to stop (the transaction stays as it is), or return to have it marked dead.
 */
export type ForeignNoncePolicy<T> = (tx: T) => Promise<void> | void

export class DurableSender<T extends StoredTx> {
    /** "Cannot land" verdicts, each acted on only once a second look agrees (common/second-look.ts). */
    private readonly cannotLand: SecondLook

    constructor(
        readonly table: TxTable<T>,
        private readonly locks: LockManager,
        /** The advisory-lock namespace of this table's senders. */
        private readonly lockNamespace: number,
        private readonly log: Logger,
        private readonly foreignNonce: ForeignNoncePolicy<T>
    ) {
        this.cannotLand = new SecondLook(table.cannotLand)
    }

    /** Signs, stores and broadcasts a transaction from `from`, unless plan.existing finds one, which is (re)broadcast and returned. */
    async send<S extends SignedTx>(chain: TxChain, from: string, plan: SendPlan<T, S>): Promise<SendResult<T>> {
        const standing = await plan.existing?.()
        if (standing) return this.rebroadcastIfNeeded(chain, standing)
        const release = await this.locks.lock(this.lockNamespace, `${chain.chain}:${from.toLowerCase()}`)
        try {
            const existing = await plan.existing?.()
            if (existing) return await this.rebroadcastIfNeeded(chain, existing)
            // Stored but unconfirmed-broadcast transactions of this sender go out first: a later
            // nonce would wait behind them anyway.
            const held: number[] = []
            for (const tx of await this.table.unfinished(chain.chain, from)) {
                if (tx.status === 'signed' && (await this.broadcast(chain, tx)).kind === 'rejected') continue
                if (tx.nonce !== null) held.push(tx.nonce)
            }
            held.push(...(await this.table.landedNonces(chain.chain, from)))
            const stored = await plan.store(await plan.sign(held))
            return await this.broadcast(chain, stored)
        } finally {
            await release()
        }
    }

    /**
     * Where a stored transaction stands, judged against `finality` once mined; a missing one is
     * rebroadcast (same bytes), a dead one is marked so that a replacement may be signed. A
     * transaction seen mined and later gone (a reorg took its block) is a broadcast one again:
     * the same bytes go out again, and its nonce stays held. With `replace`, one that stays
     * unmined is replaced at its nonce when the network's fee rule says it is priced out
     * (REPLACE_AFTER_MS, docs/sending.md); once one of them is mined, the service follows the
     * others at that nonce (TxTable.besideLanded) until the chain's final state shows them dead.
     */
    async track(chain: TxChain, tx: T, finality: Finality, replace?: ReplacePlan<T>): Promise<TxState> {
        const state = await chain.inspect({ hash: tx.hash, from: tx.from, nonce: tx.nonce, raw: tx.raw }, finality)
        if (state.kind === 'dead' || state.kind === 'superseded') return this.provenDead(chain, tx, state.kind)
        await this.cannotLand.forget(tx.id)
        if (state.kind === 'confirmed' || state.kind === 'reverted') {
            await this.table.markMined(tx.id, state.kind, state.blockNumber)
            return state
        }
        const reorged = await this.table.markUnmined(tx.id)
        if (reorged) this.log.warn({ ...this.context(tx) }, 'a mined transaction was reorged out; following it again')
        if (state.kind === 'missing') {
            const result = await this.broadcast(chain, reorged ? { ...tx, status: 'broadcast' } : tx)
            if (result.kind === 'rejected') return { kind: 'dead' }
        }
        if (replace && tx.nonce !== null) await this.replaceIfPricedOut(chain, tx, replace)
        return state
    }

    /**
     * Signs and sends a replacement of `tx` at the same nonce when the network's fee rule says tx
     * is priced out and no newer transaction of ours stands at that nonce (one per
     * REPLACE_AFTER_MS). Both stay stored and followed: at most one of them can land, as they
     * share a nonce.
     */
    private async replaceIfPricedOut(chain: TxChain, tx: T, replace: ReplacePlan<T>): Promise<void> {
        const release = await this.locks.lock(this.lockNamespace, `${chain.chain}:${tx.from.toLowerCase()}`)
        try {
            if (!(await this.table.replaceable(tx, REPLACE_AFTER_MS))) return
            const signed = await replace.sign(tx)
            if (!signed) return
            if (signed.nonce !== tx.nonce || signed.from.toLowerCase() !== tx.from.toLowerCase()) throw new Error(`a replacement of ${tx.hash} must be signed by its sender at its nonce`)
            const stored = await replace.store(tx, signed)
            this.log.warn({ ...this.context(tx), replacement: stored.hash, nonce: tx.nonce }, 'a transaction priced under the base fee is replaced at its nonce with a higher fee')
            await this.broadcast(chain, stored)
        } finally {
            await release()
        }
    }

    /**
     * A verdict that the transaction cannot land, acted on only when a look SECOND_LOOK_MS after
     * the first still says so ('pending' until then: the caller waits). A nonce used at a final
     * block (superseded) is then traced to the transaction of ours that used it; when there is
     * none, the foreign-nonce policy decides.
     */
    private async provenDead(chain: TxChain, tx: T, verdict: 'dead' | 'superseded'): Promise<TxState> {
        if (!(await this.cannotLand.agrees(tx.id))) return { kind: 'pending' }
        if (verdict === 'superseded') {
            const user = await this.nonceUser(chain, tx)
            if (user) this.log.warn({ chain: tx.chain, hash: tx.hash, nonce: tx.nonce, by: user }, 'transaction can no longer land: another of ours used its nonce')
            else await this.foreignNonce(tx)
        } else {
            this.log.warn({ ...this.context(tx) }, 'transaction can no longer land, by the final state of the chain')
        }
        await this.table.markDead(tx.id)
        return { kind: 'dead' }
    }

    /** The hash of the stored transaction of ours, other than `tx`, that landed at tx's nonce. */
    private async nonceUser(chain: TxChain, tx: T): Promise<string | undefined> {
        for (const other of await this.table.atNonce(tx)) {
            const state = await chain.inspect({ hash: other.hash, from: other.from, nonce: other.nonce, raw: other.raw }, MINED)
            if (state.kind === 'confirmed' || state.kind === 'reverted') return other.hash
        }
        return undefined
    }

    private async rebroadcastIfNeeded(chain: TxChain, tx: T): Promise<SendResult<T>> {
        if (tx.status === 'signed') return this.broadcast(chain, tx)
        return { kind: 'sent', tx }
    }

    private async broadcast(chain: TxChain, tx: T): Promise<SendResult<T>> {
        // Intent first: the row says its bytes may have left before they can. A crash after the
        // bytes reached a node finds it 'broadcast', never 'signed', so a refusal after a restart
        // is never read as "it never entered a pool". Only the call that made this change sends
        // the bytes for the first time.
        const first = tx.status === 'signed' && (await this.table.markBroadcast(tx.id))
        const sent: T = { ...tx, status: tx.status === 'signed' ? 'broadcast' : tx.status }
        const result = await chain.broadcast(tx.raw)
        if (result.kind === 'rejected' && first && (await this.refusalStands(chain, tx))) {
            // Refused in answer to the only time its bytes were ever handed out, and two looks at the network agree.
            this.log.warn({ ...this.context(tx), reason: result.reason }, 'transaction rejected by the node')
            await this.table.markRejected(tx.id, result.reason)
            return { kind: 'rejected', tx: { ...tx, status: 'rejected' }, insufficientFunds: result.insufficientFunds, reason: result.reason }
        }
        if (result.kind === 'rejected' && first) {
            this.log.warn({ ...this.context(tx), reason: result.reason }, 'a node refused a transaction that the network holds; following it')
        } else if (result.kind === 'rejected') {
            // These bytes were handed out before (maybe before a crash): some node's pool may hold them, or a block this node cannot see yet.
            this.log.warn({ ...this.context(tx), reason: result.reason }, 'a node refused a transaction sent before; following it still')
        } else if (result.kind === 'uncertain') {
            this.log.warn({ ...this.context(tx), reason: result.reason }, 'broadcast uncertain; the same bytes will be sent again')
        }
        return { kind: 'sent', tx: sent }
    }

    /**
     * Whether a refusal of a transaction's first hand-out is the network's answer and not one
     * node's: a load balancer may have handed the bytes to a node that took them and returned
     * another's refusal. It stands when two looks SECOND_LOOK_MS apart both find the transaction
     * unknown and its nonce unused in the chain's final state (inspect's 'missing'), or proven
     * unable to land. A look that cannot be made proves nothing: the transaction is then followed
     * as broadcast, holding its nonce (time, never a second payment).
     */
    private async refusalStands(chain: TxChain, tx: T): Promise<boolean> {
        for (let look = 0; look < 2; look++) {
            if (look > 0) await sleep(SECOND_LOOK_MS)
            const state = await chain.inspect({ hash: tx.hash, from: tx.from, nonce: tx.nonce, raw: tx.raw }, MINED).catch((err) => {
                this.log.warn({ ...this.context(tx), err }, 'could not look for a refused transaction; following it as broadcast')
                return undefined
            })
            if (state?.kind !== 'missing' && state?.kind !== 'dead' && state?.kind !== 'superseded') return false
        }
        return true
    }

    private context(tx: T): Record<string, unknown> {
        return { chain: tx.chain, hash: tx.hash, ...this.table.describe(tx) }
    }
}
