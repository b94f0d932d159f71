import { Keypair, PublicKey, SystemProgram, Transaction, VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import { createHash, createPublicKey, verify } from 'crypto'
import { LiteSVM } from 'litesvm'

/**
 * A Solana cluster in process (docs/bridge/README.md#local-chains-npm-start): LiteSVM (the real SVM: signature checks, system
 * program, fees, rent rules, duplicate detection) with what a validator adds around it and
 * LiteSVM lacks: slots that advance on demand, commitment levels (confirmed and finalized lag
 * the newest slot by a configurable depth), an index of transactions per address, pre/post
 * balances, and a blockhash that expires at its lastValidBlockHeight.
 *
 * Simplifications, stated: one block per slot and block height = slot − first slot (so the two
 * differ, as on a real cluster); LiteSVM accepts only its latest blockhash, so the ledger keeps
 * one blockhash until its lastValidBlockHeight passes and only then rotates it (a real cluster
 * accepts any of the last 150); a slot's block hash (getBlock) is synthetic. Balances at an older
 * commitment are the current ones less the changes of transactions in newer slots.
 *
 * Genesis accounts (the development keys) hold SOL from the first slot; exportState() (LiteSVM's
 * own snapshot plus the slots and the transaction index) and the `restore` option carry the
 * cluster across a restart.
 */

export type Commitment = 'processed' | 'confirmed' | 'finalized'

/** agave's JSON form of a TransactionError, and its Display text (what preflight errors say). */
export interface TxError { json: unknown; text: string; chargedFee: boolean }

export interface Landed {
    signature: string
    slot: number
    wire: Buffer
    tx: VersionedTransaction
    accountKeys: string[]
    preBalances: number[]
    postBalances: number[]
    fee: number
    err: TxError | null
    logs: string[]
    computeUnits: number
}

export class SendRefused extends Error {
    constructor(readonly code: number, message: string, readonly data?: unknown) {
        super(message)
    }
}

export interface LedgerOptions {
    confirmedDepth?: number
    finalizedDepth?: number
    /** Blocks a blockhash stays valid (150 on mainnet). */
    blockhashLifetime?: number
    firstSlot?: number
    /** Unix seconds of the first slot (blockTime); later slots are 400 ms apart. */
    genesisTime?: number
    /** System accounts holding lamports from the first slot, beside the faucet. */
    genesis?: { address: string; lamports: bigint }[]
    /** Continue this cluster (from exportState) instead of starting a new one; the other options but the depths are then ignored. */
    restore?: SolanaLedgerState
}

/** A cluster as exportState() writes it: JSON, LiteSVM's snapshot and wire transactions in base64. */
export interface SolanaLedgerState {
    svm: string
    firstSlot: number
    slot: number
    genesisTime: number
    blockhash: string
    lastValidBlockHeight: number
    landed: (Omit<Landed, 'wire' | 'tx'> & { wire: string })[]
}

export const SLOT_MS = 400
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
/** DER prefix of an Ed25519 SubjectPublicKeyInfo, before the 32-byte key: lets node:crypto verify raw Solana keys. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

const FIELDLESS = ['AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee', 'InvalidAccountForFee',
    'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee', 'InvalidAccountIndex', 'SignatureFailure',
    'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance']
const FIELDLESS_TEXT: Record<string, string> = {
    AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
    InsufficientFundsForFee: 'Insufficient funds for fee',
    AlreadyProcessed: 'This transaction has already been processed',
    BlockhashNotFound: 'Blockhash not found',
    SignatureFailure: 'Transaction did not pass signature verification',
    SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
}
const INSTRUCTION_ERRORS = ['GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall', 'InsufficientFunds']
const INSTRUCTION_TEXT: Record<string, string> = { InsufficientFunds: 'insufficient funds for instruction' }

/** LiteSVM's error objects in agave's JSON and text forms. */
function describeError(err: any): TxError {
    if (typeof err === 'number') {
        const name = FIELDLESS[err] ?? `TransactionError${err}`
        // These are refused before the fee is taken: the transaction never lands.
        const chargedFee = !['AccountNotFound', 'InsufficientFundsForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'SignatureFailure', 'SanitizeFailure', 'AccountLoadedTwice', 'InvalidAccountForFee', 'MissingSignatureForFee'].includes(name)
        return { json: name, text: FIELDLESS_TEXT[name] ?? name, chargedFee }
    }
    const kind = err?.constructor?.name ?? ''
    if (kind === 'TransactionErrorInsufficientFundsForRent') {
        return { json: { InsufficientFundsForRent: { account_index: err.accountIndex } }, text: `Transaction results in an account (${err.accountIndex}) with insufficient funds for rent`, chargedFee: true }
    }
    if (kind === 'TransactionErrorInstructionError') {
        const inner = err.err()
        if (typeof inner === 'number') {
            const name = INSTRUCTION_ERRORS[inner] ?? `InstructionError${inner}`
            return { json: { InstructionError: [err.index, name] }, text: `Error processing Instruction ${err.index}: ${INSTRUCTION_TEXT[name] ?? name}`, chargedFee: true }
        }
        if (typeof inner?.code === 'number') {
            return { json: { InstructionError: [err.index, { Custom: inner.code }] }, text: `Error processing Instruction ${err.index}: custom program error: 0x${inner.code.toString(16)}`, chargedFee: true }
        }
    }
    return { json: String(err), text: String(err), chargedFee: true }
}

export class SolanaLedger {
    readonly svm: LiteSVM
    readonly firstSlot: number
    slot: number
    confirmedDepth: number
    finalizedDepth: number
    readonly blockhashLifetime: number
    blockhash: string
    lastValidBlockHeight: number
    readonly landed = new Map<string, Landed>()
    private readonly byAddress = new Map<string, string[]>()
    private readonly faucet = Keypair.fromSeed(createHash('sha256').update('solana-faucet').digest())
    readonly genesisTime: number

    constructor(options: LedgerOptions = {}) {
        this.confirmedDepth = options.confirmedDepth ?? 1
        this.finalizedDepth = options.finalizedDepth ?? 32
        this.blockhashLifetime = options.blockhashLifetime ?? 150
        const saved = options.restore
        if (saved) {
            this.firstSlot = saved.firstSlot
            this.slot = saved.slot
            this.genesisTime = saved.genesisTime
            this.svm = LiteSVM.fromBytes(Buffer.from(saved.svm, 'base64'))
            this.blockhash = saved.blockhash
            this.lastValidBlockHeight = saved.lastValidBlockHeight
            for (const t of saved.landed) {
                const wire = Buffer.from(t.wire, 'base64')
                this.record({ ...t, wire, tx: VersionedTransaction.deserialize(wire) })
            }
            return
        }
        this.firstSlot = options.firstSlot ?? 1000
        this.slot = this.firstSlot
        this.genesisTime = options.genesisTime ?? 1_750_000_000
        this.svm = new LiteSVM().withTransactionHistory(1_000_000n)
        this.svm.warpToSlot(BigInt(this.slot))
        // Genesis money, outside any transaction: before the first slot anyone sees.
        for (const { address, lamports } of [{ address: this.faucet.publicKey.toBase58(), lamports: 1_000_000_000_000n }, ...(options.genesis ?? [])]) {
            this.svm.setAccount({ address, lamports, data: new Uint8Array(), programAddress: SYSTEM_PROGRAM, executable: false, space: 0n } as any)
        }
        this.blockhash = this.svm.latestBlockhash()
        this.lastValidBlockHeight = this.blockHeight() + this.blockhashLifetime
    }

    /** The whole cluster as JSON: LiteSVM's accounts, sysvars and transaction history, with the slots and the transaction index around it. */
    exportState(): SolanaLedgerState {
        return {
            svm: Buffer.from(this.svm.toBytes()).toString('base64'),
            firstSlot: this.firstSlot,
            slot: this.slot,
            genesisTime: this.genesisTime,
            blockhash: this.blockhash,
            lastValidBlockHeight: this.lastValidBlockHeight,
            landed: [...this.landed.values()].map(({ tx, wire, ...rest }) => ({ ...rest, wire: wire.toString('base64') })),
        }
    }

    private record(landed: Landed): void {
        this.landed.set(landed.signature, landed)
        for (const key of landed.accountKeys) {
            const list = this.byAddress.get(key) ?? []
            list.push(landed.signature)
            this.byAddress.set(key, list)
        }
    }

    private get inner(): any {
        return (this.svm as any).inner
    }

    blockHeight(slot = this.slot): number {
        return slot - this.firstSlot
    }

    slotAt(commitment: Commitment = 'finalized'): number {
        const depth = commitment === 'processed' ? 0 : commitment === 'confirmed' ? this.confirmedDepth : this.finalizedDepth
        return Math.max(this.slot - depth, this.firstSlot)
    }

    statusOf(slot: number): Commitment {
        return slot <= this.slotAt('finalized') ? 'finalized' : slot <= this.slotAt('confirmed') ? 'confirmed' : 'processed'
    }

    blockTime(slot: number): number {
        return this.genesisTime + Math.floor(((slot - this.firstSlot) * SLOT_MS) / 1000)
    }

    blockHashOf(slot: number): string {
        return bs58.encode(createHash('sha256').update(`slot:${slot}`).digest())
    }

    /** Produces n empty slots; the blockhash rotates once its lastValidBlockHeight is passed. */
    advance(n = 1): void {
        this.slot += n
        this.svm.warpToSlot(BigInt(this.slot))
        if (this.blockHeight() > this.lastValidBlockHeight) {
            this.svm.expireBlockhash()
            this.blockhash = this.svm.latestBlockhash()
            this.lastValidBlockHeight = this.blockHeight() + this.blockhashLifetime
        }
    }

    /** Advances until everything landed so far is finalized. */
    finalize(): void {
        this.advance(this.finalizedDepth)
    }

    rentExempt(dataLength: number): number {
        return Number(this.svm.minimumBalanceForRentExemption(BigInt(dataLength)))
    }

    /** Current (processed) balance. */
    private lamports(address: string): number {
        return Number(this.inner.getBalance(new PublicKey(address).toBytes()) ?? 0n)
    }

    balance(address: string, commitment: Commitment = 'finalized'): number {
        let balance = this.lamports(address)
        const visible = this.slotAt(commitment)
        for (const signature of this.byAddress.get(address) ?? []) {
            const tx = this.landed.get(signature)!
            if (tx.slot <= visible) continue
            const i = tx.accountKeys.indexOf(address)
            balance -= tx.postBalances[i] - tx.preBalances[i]
        }
        return balance
    }

    /** A real system transfer from the faucet, landed in the current slot. */
    fund(address: string, lamports: bigint): string {
        const tx = new Transaction({ feePayer: this.faucet.publicKey, recentBlockhash: this.blockhash })
            .add(SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(address), lamports }))
        tx.sign(this.faucet)
        return this.send(tx.serialize(), { skipPreflight: false })
    }

    /** Fee of a message: lamports per signature (LiteSVM's 5000) times its required signatures; null when its blockhash is not the live one. */
    feeFor(requiredSignatures: number, recentBlockhash: string): number | null {
        return recentBlockhash === this.blockhash ? 5000 * requiredSignatures : null
    }

    /**
     * sendTransaction as an RPC node does it: signatures checked first (-32003), then, unless
     * skipPreflight, a simulation whose failure refuses the transaction (-32002) without it
     * landing; otherwise it is executed in the current slot. With skipPreflight a transaction
     * that cannot be executed is dropped silently, as a leader would, and its signature returned.
     */
    send(wire: Uint8Array, options: { skipPreflight: boolean }): string {
        let tx: VersionedTransaction
        try {
            tx = VersionedTransaction.deserialize(wire)
        } catch (err) {
            throw new SendRefused(-32602, `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(err as Error).message}`)
        }
        const signature = bs58.encode(tx.signatures[0])
        if (!this.signaturesValid(tx)) throw new SendRefused(-32003, 'Transaction signature verification failure')
        const legacy = tx.version === 'legacy'
        if (!options.skipPreflight) {
            if (this.landed.has(signature)) {
                throw this.preflightError(describeError(6))
            }
            const simulated = legacy ? this.inner.simulateLegacyTransaction(wire) : this.inner.simulateVersionedTransaction(wire)
            if (typeof simulated.err === 'function') throw this.preflightError(describeError(simulated.err()), simulated.meta().logs())
        }
        const accountKeys = tx.message.staticAccountKeys.map((k) => k.toBase58())
        const preBalances = accountKeys.map((k) => this.lamports(k))
        const result = legacy ? this.inner.sendLegacyTransaction(wire) : this.inner.sendVersionedTransaction(wire)
        const failed = typeof result.err === 'function'
        const err = failed ? describeError(result.err()) : null
        if (err && !err.chargedFee) return signature
        const postBalances = accountKeys.map((k) => this.lamports(k))
        const meta = failed ? result.meta() : result
        const landed: Landed = {
            signature, slot: this.slot, wire: Buffer.from(wire), tx, accountKeys, preBalances, postBalances,
            fee: preBalances.reduce((a, b) => a + b, 0) - postBalances.reduce((a, b) => a + b, 0),
            err, logs: meta.logs(), computeUnits: Number(meta.computeUnitsConsumed()),
        }
        this.record(landed)
        return signature
    }

    private preflightError(err: TxError, logs: string[] = []): SendRefused {
        return new SendRefused(-32002, `Transaction simulation failed: ${err.text}`, {
            accounts: null, err: err.json, innerInstructions: null, logs, replacementBlockhash: null, returnData: null, unitsConsumed: 0,
        })
    }

    private signaturesValid(tx: VersionedTransaction): boolean {
        // LiteSVM verifies too; checking here as well lets the node answer -32003 before any execution, as agave does.
        const message = tx.message.serialize()
        const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures)
        return signers.length === tx.signatures.length && signers.every((key, i) => {
            const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBytes()]), format: 'der', type: 'spki' })
            return verify(null, message, publicKey, tx.signatures[i])
        })
    }

    /** Landed transactions visible at a commitment touching an address, newest first. */
    signaturesFor(address: string, commitment: Commitment): Landed[] {
        const visible = this.slotAt(commitment)
        return (this.byAddress.get(address) ?? []).map((s) => this.landed.get(s)!).filter((t) => t.slot <= visible).reverse()
    }
}
