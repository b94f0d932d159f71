import { Pool } from 'pg'
import { setTimeout as sleep } from 'timers/promises'
import { Logger } from '../../common/logger'
import { SECOND_LOOK_MS } from '../../common/second-look'
import { withTimeout } from '../../common/with-timeout'
import { ChainAdapter } from '../chains/adapter'
import { BridgeTransactions } from '../store/transactions'
import { VaultHold, VaultHolds } from '../store/vault-holds'
import { OperatorHoldError } from './hold'

/**
 * The ledger guard: a vault signs nothing new while its node knows transactions from it that
 * bridge_tx does not (docs/bridge/lifecycle.md#vault-holds). Every transaction a vault sends is
 * stored before its bytes leave, under the vault's signing lock, so in normal operation the node
 * knows nothing from the vault the ledger lacks, however many replicas sign. When it does, a
 * transaction was signed that the ledger lost (a restore of the database to an earlier point) or
 * never had (another user of the key), and signing again could pay a swap twice: the vault is held
 * until an operator has accounted for them, and every swap that would sign from it is held for an
 * operator.
 *
 * Account chains (EVM, adapters with sentCount) compare counts: the node's nonce at `latest` and
 * `pending` never passes one past the highest stored nonce. Chains without account nonces
 * (BITCOIN, TRON, SOLANA: adapters with sentTransactions) compare ids: each of the vault's sends
 * among the newest `window` transactions the node lists must be a bridge_tx hash of the chain (any
 * sender: a hash is unique) or one an operator accounted for by releasing an earlier hold.
 *
 * A node cannot invent a signed transaction, so what it shows is evidence; what a lagging node does
 * not show yet is harmless. The node is read once more, SECOND_LOOK_MS later, before the vault is
 * held, so that one bogus answer costs a pause, not a hold. A read that fails or outlasts
 * `readTimeoutMs` throws a plain error: the signature waits for the step's next pass, nothing is held.
 */
export class LedgerGuard {
    private readonly holds: VaultHolds
    private readonly secondLookMs: number
    private readonly window: number
    private readonly readTimeoutMs: number

    constructor(pool: Pool, private readonly transactions: BridgeTransactions, private readonly log: Logger,
        options: { secondLookMs?: number; window?: number; readTimeoutMs?: number } = {}) {
        this.holds = new VaultHolds(pool)
        this.secondLookMs = options.secondLookMs ?? SECOND_LOOK_MS
        this.window = options.window ?? DEFAULT_WINDOW
        this.readTimeoutMs = options.readTimeoutMs ?? READ_TIMEOUT_MS
    }

    /**
     * Throws OperatorHoldError when the vault `from` is held, or its node knows transactions from it
     * the ledger does not account for. Call under the vault's signing lock, right before it signs a
     * new transaction. Adapters with neither sentCount nor sentTransactions pass.
     */
    async check(adapter: ChainAdapter, from: string): Promise<void> {
        if (!adapter.sentCount && !adapter.sentTransactions) return
        const open = await this.holds.open(adapter.chain, from)
        if (open) throw this.held(open.reason, open)
        if (adapter.sentCount) await this.checkCount(adapter, from)
        else await this.checkSent(adapter, from)
    }

    private async checkCount(adapter: ChainAdapter, from: string): Promise<void> {
        // What an operator accounted for when releasing an earlier hold counts as known.
        const known = Math.max(await this.transactions.ledgerNext(adapter.chain, from), await this.holds.acknowledgedNext(adapter.chain, from))
        if ((await this.chainCount(adapter, from)) <= known) return
        this.log.warn({ chain: adapter.chain, vault: from, ledgerNext: known }, 'the node counts more transactions from the vault than the ledger knows; looking again before holding it')
        await sleep(this.secondLookMs)
        const seen = await this.chainCount(adapter, from)
        if (seen <= known) return
        const reason = `the ${adapter.chain} vault ${from} has sent ${seen - known} transaction(s) the bridge's ledger does not know ` +
            `(the node counts ${seen}, the ledger accounts for ${known}): ${CONSEQUENCE}`
        await this.open({ chain: adapter.chain, address: from, ledgerNext: known, chainNext: seen, unknownTxs: null, reason })
    }

    /** The node's count of transactions from `from`: mined, or in its pool, whichever is higher. */
    private async chainCount(adapter: ChainAdapter, from: string): Promise<number> {
        const { latest, pending } = await this.read(adapter, from, () => adapter.sentCount!(from))
        return Math.max(latest, pending)
    }

    private async checkSent(adapter: ChainAdapter, from: string): Promise<void> {
        const first = await this.unknownSends(adapter, from)
        if (!first.length) return
        this.log.warn({ chain: adapter.chain, vault: from, unknown: first }, 'the node lists transactions from the vault the ledger does not know; looking again before holding it')
        await sleep(this.secondLookMs)
        // Only what both reads showed: an id one answer made up is not evidence.
        const again = new Set(await this.unknownSends(adapter, from))
        const unknown = first.filter((id) => again.has(id))
        if (!unknown.length) return
        const named = unknown.slice(0, NAMED_IN_REASON).join(', ') + (unknown.length > NAMED_IN_REASON ? ` and ${unknown.length - NAMED_IN_REASON} more` : '')
        const reason = `the ${adapter.chain} vault ${from} has sent ${unknown.length} transaction(s) the bridge's ledger does not know (${named}): ${CONSEQUENCE}`
        await this.open({ chain: adapter.chain, address: from, ledgerNext: null, chainNext: null, unknownTxs: unknown, reason })
    }

    /** The vault's sends among the newest the node lists that neither the ledger nor a released hold accounts for. */
    private async unknownSends(adapter: ChainAdapter, from: string): Promise<string[]> {
        const sent = await this.read(adapter, from, () => adapter.sentTransactions!(from, this.window))
        if (!sent.length) return []
        const stored = await this.transactions.knownHashes(adapter.chain, sent)
        const rest = sent.filter((id) => !stored.has(id))
        const acknowledged = await this.holds.acknowledgedTxs(adapter.chain, from, rest)
        return rest.filter((id) => !acknowledged.has(id))
    }

    /** A node read bounded in time: a stalling node must not keep the vault's signing lock. */
    private read<T>(adapter: ChainAdapter, from: string, read: () => Promise<T>): Promise<T> {
        return withTimeout(read(), this.readTimeoutMs, `the ledger guard's read of the ${adapter.chain} vault ${from} took over ${this.readTimeoutMs} ms; the signature waits`)
    }

    /** Opens the hold (unless another replica did first) and throws. */
    private async open(hold: Omit<VaultHold, 'id' | 'heldAt'>): Promise<never> {
        if (await this.holds.hold(hold)) {
            this.log.error({ chain: hold.chain, vault: hold.address, chainNext: hold.chainNext, ledgerNext: hold.ledgerNext, unknownTxs: hold.unknownTxs },
                'vault held for an operator: it sent transactions the ledger does not know')
        }
        throw this.held(hold.reason, hold)
    }

    private held(reason: string, hold: Pick<VaultHold, 'chain' | 'address' | 'chainNext' | 'ledgerNext' | 'unknownTxs'>): OperatorHoldError {
        return new OperatorHoldError(reason, {
            chain: hold.chain, vault: hold.address, vault_held: true,
            ...(hold.unknownTxs ? { unknown_txs: hold.unknownTxs } : { chain_nonce: hold.chainNext, ledger_nonce: hold.ledgerNext }),
        })
    }
}

/** Newest transactions of a vault without account nonces read when BRIDGE_LEDGER_GUARD_WINDOW is not given. */
export const DEFAULT_WINDOW = 50

/** Longest wait for the node's answer before a vault signs; the node clients' own timeouts are shorter. */
const READ_TIMEOUT_MS = 60_000

/** Ids spelled out in a hold's reason; the hold row keeps them all. */
const NAMED_IN_REASON = 5

const CONSEQUENCE = 'a database restored to an earlier point, or another user of the vault\'s key; ' +
    'nothing more is signed from this vault until an operator accounts for them and releases the vault hold'
