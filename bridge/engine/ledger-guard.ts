import { Pool } from 'pg'
import { setTimeout as sleep } from 'timers/promises'
import { Logger } from '../../common/logger'
import { SECOND_LOOK_MS } from '../../common/second-look'
import { ChainAdapter } from '../chains/adapter'
import { BridgeTransactions } from '../store/transactions'
import { VaultHolds } from '../store/vault-holds'
import { OperatorHoldError } from './hold'

/**
 * The ledger guard: a vault signs nothing new while its node counts transactions from it that
 * bridge_tx does not know (docs/bridge/lifecycle.md#vault-holds). Every transaction a vault sends is
 * stored before its bytes leave, under the vault's signing lock, so in normal operation the node's
 * count (nonce at `latest`, and at `pending`) never passes one past the highest stored nonce, however
 * many replicas sign. When it does, a transaction was signed that the ledger lost (a restore of the
 * database to an earlier point) or never had (another user of the key), and signing again could pay
 * a swap twice: the vault is held until an operator has accounted for them, and every swap that
 * would sign from it is held for an operator.
 *
 * A node cannot invent a signed transaction, so a higher count is evidence; a lagging node's lower
 * count is harmless. The count is read once more, SECOND_LOOK_MS later, before the vault is held, so
 * that one bogus answer costs a pause, not a hold.
 */
export class LedgerGuard {
    private readonly holds: VaultHolds

    constructor(pool: Pool, private readonly transactions: BridgeTransactions, private readonly log: Logger, private readonly secondLookMs = SECOND_LOOK_MS) {
        this.holds = new VaultHolds(pool)
    }

    /**
     * Throws OperatorHoldError when the vault `from` is held, or its node counts more transactions
     * from it than the ledger accounts for. Call under the vault's signing lock, right before it
     * signs at a new nonce. Chains without account nonces (adapters without sentCount) pass.
     */
    async check(adapter: ChainAdapter, from: string): Promise<void> {
        if (!adapter.sentCount) return
        const open = await this.holds.open(adapter.chain, from)
        if (open) throw this.held(open.reason, open.chain, open.address, open.chainNext, open.ledgerNext)
        // What an operator accounted for when releasing an earlier hold counts as known.
        const known = Math.max(await this.transactions.ledgerNext(adapter.chain, from), await this.holds.acknowledgedNext(adapter.chain, from))
        if ((await this.chainCount(adapter, from)) <= known) return
        this.log.warn({ chain: adapter.chain, vault: from, ledgerNext: known }, 'the node counts more transactions from the vault than the ledger knows; looking again before holding it')
        await sleep(this.secondLookMs)
        const seen = await this.chainCount(adapter, from)
        if (seen <= known) return
        const reason = `the ${adapter.chain} vault ${from} has sent ${seen - known} transaction(s) the bridge's ledger does not know ` +
            `(the node counts ${seen}, the ledger accounts for ${known}): a database restored to an earlier point, or another user of the vault's key; ` +
            `nothing more is signed from this vault until an operator accounts for them and releases the vault hold`
        if (await this.holds.hold({ chain: adapter.chain, address: from, ledgerNext: known, chainNext: seen, reason })) {
            this.log.error({ chain: adapter.chain, vault: from, chainNext: seen, ledgerNext: known }, 'vault held for an operator: it sent transactions the ledger does not know')
        }
        throw this.held(reason, adapter.chain, from, seen, known)
    }

    /** The node's count of transactions from `from`: mined, or in its pool, whichever is higher. */
    private async chainCount(adapter: ChainAdapter, from: string): Promise<number> {
        const { latest, pending } = await adapter.sentCount!(from)
        return Math.max(latest, pending)
    }

    private held(reason: string, chain: string, vault: string, chainNext: number, ledgerNext: number): OperatorHoldError {
        return new OperatorHoldError(reason, { chain, vault, vault_held: true, chain_nonce: chainNext, ledger_nonce: ledgerNext })
    }
}
