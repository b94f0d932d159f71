import { createHash } from 'crypto'
import * as ecc from 'tiny-secp256k1'
import { TronWeb, utils } from 'tronweb'
import { publicKeyToAddress, signDigest } from '../../bridge/chains/tron/keys'

/**
 * A TRON chain in memory, with the rules java-tron applies to what wallets and the bridge send,
 * for the full-node HTTP front end in server.ts: docs/bridge/README.md#local-chains-npm-start
 *
 * - Blocks 3 s apart, produced on demand (mine: index.ts on a timer, tests by hand); a
 *   solidified height SOLIDIFY_DEPTH (19) blocks behind the head, with the state as of that block (the /walletsolidity view).
 * - Transactions are the JSON java-tron's /wallet/broadcasttransaction takes. As java-tron does,
 *   the protobuf is rebuilt from raw_data (tronweb's own encoder), txID = sha256(raw_data); the
 *   one signature must recover (secp256k1) to the owner's address; TAPOS (ref
 *   block bytes and hash against the recent blocks), expiration (after the head block's time,
 *   within 24 h) and duplicates are checked, in java-tron's order.
 * - Resources: bandwidth = protobuf size + 64 bytes, from the owner's free 600 a day (recovering
 *   linearly over 24 h) or burned at 1 000 sun a byte; a TRX transfer creating its recipient
 *   burns 0.1 TRX instead and pays the 1 TRX account creation fee. Energy of a USDT transfer:
 *   64 285 (recipient holds USDT) or 130 285 (it does not), burned at the energy price up to
 *   min(fee_limit, balance); short of it the call fails OUT_OF_ENERGY and what it could pay is
 *   burned all the same. No staking: accounts have no staked bandwidth or energy.
 * - One TRC-20 contract, USDT (6 decimals): balanceOf, transfer, decimals, symbol, name,
 *   totalSupply; a transfer to an address creates no account there (as on TRON).
 * - A validated transaction is applied to the pending state at once, as java-tron pre-executes
 *   it, and goes into the next block.
 * - Genesis accounts (the development keys) hold TRX and USDT from block 0; exportState() and
 *   the `restore` option carry the whole chain across a restart.
 *
 * Test hooks: fundTrx / fundUsdt (signed transfers from a faucet account, so they appear in the
 * account histories), drop (a reorg: the blocks from a height on disappear, and with them
 * their transactions unless requeued into later blocks), setEnergyPrice, useFreeBandwidth.
 */

export const SOLIDIFY_DEPTH = 19
export const BLOCK_MS = 3_000
const DAY_MS = 86_400_000
const MAX_EXPIRATION_MS = DAY_MS
/** Transactions landed this recently are caught by java-tron's transaction-id cache before any other check. */
const RECENT_BLOCKS = 20
const KEEP_SNAPSHOTS = 256

export const USDT_ENERGY_TO_HOLDER = 64_285n
export const USDT_ENERGY_TO_NEW_HOLDER = 130_285n
/** Energy a reverted USDT transfer (sender short of tokens) burns before the revert. */
export const USDT_REVERT_ENERGY = 9_000n
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

export const PARAMS = {
    transactionFee: 1_000n,
    createAccountFee: 100_000n,
    newAccountFee: 1_000_000n,
    freeNetLimit: 600,
    maxFeeLimit: 15_000_000_000n,
}

/** A refusal of /wallet/broadcasttransaction: java-tron's response code and its message. */
export class BroadcastRefused extends Error {
    constructor(readonly code: string, message: string) {
        super(message)
    }
}

export interface Account {
    balance: bigint
    createTime: number
    freeNetUsage: number
    latestConsumeFreeTime: number
}

interface State {
    accounts: Map<string, Account>
    /** USDT balances by 41… hex */
    usdt: Map<string, bigint>
}

export interface Block {
    number: number
    id: string
    parentHash: string
    timestamp: number
    txids: string[]
}

export interface SignedJson {
    visible?: boolean
    txID: string
    raw_data: any
    raw_data_hex?: string
    signature: string[]
}

export interface Landed {
    txid: string
    /** The transaction as java-tron would serve it back (raw_data_hex recomputed from raw_data). */
    tx: SignedJson
    type: 'TransferContract' | 'TriggerSmartContract'
    /** 41… hex */
    owner: string
    /** TRX recipient, or the called contract (41… hex) */
    to: string
    /** TRX sent (TransferContract) */
    amount: bigint
    contractRet: 'SUCCESS' | 'OUT_OF_ENERGY' | 'REVERT'
    fee: bigint
    netUsage: number
    netFee: bigint
    energyUsage: bigint
    energyFee: bigint
    bytes: number
    logs: { address: string; topics: string[]; data: string }[]
    /** TRC-20 transfers it made: from / to 41… hex */
    tokenTransfers: { from: string; to: string; value: bigint }[]
    contractResult: string
    block?: number
}

export interface LedgerOptions {
    energyPrice?: bigint
    /** base58 address the USDT contract lives at (default: TRON mainnet's) */
    usdtAddress?: string
    solidifyDepth?: number
    /** ms of block 0 */
    startTime?: number
    /** Accounts holding TRX (sun) and USDT (base units) from block 0, beside the faucet. */
    genesis?: { address: string; sun: bigint; usdt: bigint }[]
    /** Continue this chain (from exportState) instead of starting a new one; genesis and startTime are then ignored. */
    restore?: TronLedgerState
}

/** A chain as exportState() writes it: plain JSON but for bigints; blocks as [id, timestamp, txids]. */
export interface TronLedgerState {
    blocks: [string, number, string[]][]
    /** Canonical transactions in block order, then the pending ones. */
    landed: Landed[]
    pending: string[]
    live: StateJson
    snapshots: [number, StateJson][]
    energyPrice: bigint
    energyPrices: [number, bigint][]
    fork: number
}

interface StateJson {
    accounts: [string, Account][]
    usdt: [string, bigint][]
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest()
const toHex = (address: string) => TronWeb.address.toHex(address).toLowerCase()
const toBase58 = (hex: string) => TronWeb.address.fromHex(hex)

function clone(state: State): State {
    return {
        accounts: new Map([...state.accounts].map(([k, a]) => [k, { ...a }])),
        usdt: new Map(state.usdt),
    }
}

/** The hex (41…) of an address given in either form; throws on anything else. */
export function parseAddress(address: unknown, visible: boolean): string {
    if (typeof address !== 'string') throw new Error('address missing')
    if (visible) {
        if (!TronWeb.isAddress(address) || !address.startsWith('T')) throw new Error(`invalid base58 address ${address}`)
        return toHex(address)
    }
    const hex = address.replace(/^0x/, '').toLowerCase()
    if (!/^41[0-9a-f]{40}$/.test(hex)) throw new Error(`invalid hex address ${address}`)
    return hex
}

export class TronLedger {
    readonly usdtHex: string
    readonly usdt: string
    readonly faucet: string
    readonly faucetHex: string
    readonly solidifyDepth: number
    readonly blocks: Block[] = []
    pending: Landed[] = []
    /** Transactions of the canonical blocks and the pending pool, by txID. */
    readonly landed = new Map<string, Landed>()
    energyPrice: bigint
    /** [since ms, sun per energy], for /wallet/getenergyprices */
    readonly energyPrices: [number, bigint][] = []
    private live: State
    private readonly snapshots = new Map<number, State>()
    private readonly faucetKey: Uint8Array
    /** Changes block ids after a drop, so a replacement block at a height is another block. */
    private fork = 0

    constructor(options: LedgerOptions = {}) {
        this.solidifyDepth = options.solidifyDepth ?? SOLIDIFY_DEPTH
        this.energyPrice = options.energyPrice ?? 100n
        this.usdt = options.usdtAddress ?? 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
        this.usdtHex = toHex(this.usdt)
        this.faucetKey = sha256('tron-faucet')
        this.faucetHex = toHex(publicKeyToAddress(ecc.pointFromScalar(this.faucetKey, false)!))
        this.faucet = toBase58(this.faucetHex)
        if (options.restore) {
            this.live = this.restore(options.restore)
            return
        }
        const start = options.startTime ?? Math.floor(Date.now() / BLOCK_MS) * BLOCK_MS
        this.energyPrices.push([0, this.energyPrice])
        const account = (balance: bigint): Account => ({ balance, createTime: start, freeNetUsage: 0, latestConsumeFreeTime: 0 })
        const genesis = options.genesis ?? []
        this.live = {
            accounts: new Map([
                [this.faucetHex, account(10_000_000_000_000n)],
                [this.usdtHex, account(0n)],
                ...genesis.map((g): [string, Account] => [toHex(g.address), account(g.sun)]),
            ]),
            usdt: new Map([[this.faucetHex, 1_000_000_000_000_000n], ...genesis.map((g): [string, bigint] => [toHex(g.address), g.usdt])]),
        }
        this.blocks.push(this.makeBlock(0, '00'.repeat(32), start, []))
        this.snapshots.set(0, clone(this.live))
    }

    /** The whole chain as plain data: the blocks, every transaction, the pending and the solidified-to-head states. */
    exportState(): TronLedgerState {
        const json = (state: State): StateJson => ({ accounts: [...state.accounts], usdt: [...state.usdt] })
        return {
            blocks: this.blocks.map((b) => [b.id, b.timestamp, b.txids]),
            landed: [...this.landed.values()],
            pending: this.pending.map((t) => t.txid),
            live: json(this.live),
            // drop() and the solidified view reach back no further than the solidified block.
            snapshots: [...this.snapshots].filter(([n]) => n >= this.solidifiedNumber).map(([n, state]) => [n, json(state)]),
            energyPrice: this.energyPrice,
            energyPrices: this.energyPrices,
            fork: this.fork,
        }
    }

    private restore(saved: TronLedgerState): State {
        const state = (json: StateJson): State => ({ accounts: new Map(json.accounts), usdt: new Map(json.usdt) })
        saved.blocks.forEach(([id, timestamp, txids], number) => {
            this.blocks.push({ number, id, parentHash: number === 0 ? '00'.repeat(32) : saved.blocks[number - 1][0], timestamp, txids })
        })
        for (const t of saved.landed) this.landed.set(t.txid, t)
        this.pending = saved.pending.map((id) => this.landed.get(id)!)
        for (const [n, json] of saved.snapshots) this.snapshots.set(n, state(json))
        this.energyPrice = saved.energyPrice
        this.energyPrices.push(...saved.energyPrices)
        this.fork = saved.fork
        return state(saved.live)
    }

    get head(): Block {
        return this.blocks[this.blocks.length - 1]
    }

    get solidifiedNumber(): number {
        return Math.max(this.head.number - this.solidifyDepth, 0)
    }

    private makeBlock(number: number, parentHash: string, timestamp: number, txids: string[]): Block {
        const digest = sha256(`${this.fork}|${number}|${parentHash}|${timestamp}|${txids.join(',')}`).toString('hex')
        return { number, id: number.toString(16).padStart(16, '0') + digest.slice(16), parentHash, timestamp, txids }
    }

    /** The pending state (what /wallet/getaccount shows) or the solidified one. */
    view(solidified = false): State {
        return solidified ? this.snapshots.get(this.solidifiedNumber)! : this.live
    }

    account(address: string, solidified = false): Account | undefined {
        return this.view(solidified).accounts.get(toHex(address))
    }

    trxBalance(address: string, solidified = false): bigint {
        return this.account(address, solidified)?.balance ?? 0n
    }

    usdtBalance(address: string, solidified = false): bigint {
        return this.view(solidified).usdt.get(toHex(address)) ?? 0n
    }

    /** Free bandwidth used as of now (linear recovery over 24 h of chain time). */
    freeNetUsed(account: Account, now = this.head.timestamp): number {
        const elapsed = now - account.latestConsumeFreeTime
        if (elapsed >= DAY_MS || account.freeNetUsage === 0) return 0
        return Math.floor((account.freeNetUsage * (DAY_MS - elapsed)) / DAY_MS)
    }

    /** Test hook: spends an account's free bandwidth as if it had sent `bytes` just now. */
    useFreeBandwidth(address: string, bytes = PARAMS.freeNetLimit): void {
        const account = this.live.accounts.get(toHex(address))
        if (!account) throw new Error(`no account ${address}`)
        account.freeNetUsage = Math.min(this.freeNetUsed(account) + bytes, PARAMS.freeNetLimit)
        account.latestConsumeFreeTime = this.head.timestamp
    }

    setEnergyPrice(price: bigint): void {
        this.energyPrice = price
        this.energyPrices.push([this.head.timestamp, price])
    }

    /**
     * Produces n blocks, the first holding every pending transaction still valid; returns them.
     * `at` dates the first one (a producer's slot time, never before the next slot after the head);
     * without it each block comes one slot after the previous.
     */
    mine(n = 1, at?: number): Block[] {
        const made: Block[] = []
        for (let i = 0; i < n; i++) {
            // java-tron drops pending transactions that expired before they were packed.
            if (this.pending.some((t) => BigInt(t.tx.raw_data.expiration) <= BigInt(this.head.timestamp))) this.rebuild(this.pending)
            const txids = this.pending.map((t) => t.txid)
            const timestamp = Math.max(this.head.timestamp + BLOCK_MS, i === 0 && at !== undefined ? at : 0)
            const block = this.makeBlock(this.head.number + 1, this.head.id, timestamp, txids)
            for (const t of this.pending) t.block = block.number
            this.pending = []
            this.blocks.push(block)
            this.snapshots.set(block.number, clone(this.live))
            this.snapshots.delete(block.number - KEEP_SNAPSHOTS)
            made.push(block)
        }
        return made
    }

    /**
     * A reorg: blocks from `from` on disappear with their transactions. With requeue, those
     * transactions go back to the pending pool instead (as a new fork's producer would take them
     * from its pool), where the ones still valid wait for the next block. Solidified blocks cannot
     * be dropped.
     */
    drop(from: number, options: { requeue?: boolean } = {}): void {
        if (from <= this.solidifiedNumber) throw new Error(`block ${from} is solidified (solidified height ${this.solidifiedNumber})`)
        if (from > this.head.number) throw new Error(`no block ${from}`)
        const removed = this.blocks.splice(from)
        const dropped = removed.flatMap((b) => b.txids.map((id) => this.landed.get(id)!))
        for (const t of dropped) this.landed.delete(t.txid)
        for (const b of removed) this.snapshots.delete(b.number)
        this.fork++
        this.rebuild([...(options.requeue ? dropped : []), ...this.pending])
    }

    /** Pending state = head snapshot + `txs` re-validated and re-applied in order; invalid ones vanish. */
    private rebuild(txs: Landed[]): void {
        for (const t of this.pending) this.landed.delete(t.txid)
        this.pending = []
        this.live = clone(this.snapshots.get(this.head.number)!)
        for (const t of txs) {
            t.block = undefined
            try {
                this.submit(t.tx)
            } catch {
                // It cannot land on this chain any more (expired, TAPOS block gone, funds spent).
            }
        }
    }

    /** java-tron's checks and execution of a broadcast transaction; throws BroadcastRefused. Returns the txID. */
    submit(tx: SignedJson): string {
        const contract = tx?.raw_data?.contract
        if (!Array.isArray(contract) || contract.length !== 1) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'one contract per transaction')
        let pb: any
        try {
            pb = utils.transaction.txJsonToPb(tx)
        } catch (err) {
            throw new BroadcastRefused('OTHER_ERROR', `cannot read the transaction: ${(err as Error).message}`)
        }
        const rawHex = utils.transaction.txPbToRawDataHex(pb).toLowerCase()
        const txid = sha256(Buffer.from(rawHex, 'hex')).toString('hex')
        const known = this.landed.get(txid)
        if (known && (known.block === undefined || known.block > this.head.number - RECENT_BLOCKS)) throw new BroadcastRefused('DUP_TRANSACTION_ERROR', 'Dup transaction.')
        const raw = tx.raw_data
        const refNumber = parseInt(String(raw.ref_block_bytes), 16)
        const ref = [...this.blocks].reverse().find((b) => (b.number & 0xffff) === refNumber)
        if (!ref || ref.id.slice(16, 32) !== String(raw.ref_block_hash).toLowerCase()) {
            throw new BroadcastRefused('TAPOS_ERROR', `Tapos check error: ref block ${raw.ref_block_bytes}/${raw.ref_block_hash} is not a recent block`)
        }
        const expiration = Number(raw.expiration)
        if (!(expiration > this.head.timestamp) || expiration > this.head.timestamp + MAX_EXPIRATION_MS) {
            throw new BroadcastRefused('TRANSACTION_EXPIRATION_ERROR', `Transaction expired: expiration ${expiration}, head block time ${this.head.timestamp}`)
        }
        if (known) throw new BroadcastRefused('DUP_TRANSACTION_ERROR', 'Dup transaction.')
        const value = contract[0].parameter?.value ?? {}
        let owner: string
        try {
            owner = parseAddress(value.owner_address, tx.visible === true)
        } catch (err) {
            throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', (err as Error).message)
        }
        if (!Array.isArray(tx.signature) || tx.signature.length !== 1) throw new BroadcastRefused('SIGERROR', 'Validate signature error: one owner signature expected')
        const signer = recoverSigner(txid, tx.signature[0])
        if (signer !== owner) throw new BroadcastRefused('SIGERROR', `Validate signature error: signed by ${signer ?? 'no valid key'}, not by the owner ${owner}`)
        pb.addSignature(Buffer.from(tx.signature[0], 'hex'))
        const bytes = pb.serializeBinary().length + 64
        const served: SignedJson = { visible: false, txID: txid, raw_data: raw, raw_data_hex: rawHex, signature: [...tx.signature] }
        let landed: Landed
        if (contract[0].type === 'TransferContract') landed = this.transfer(served, owner, value, bytes)
        else if (contract[0].type === 'TriggerSmartContract') landed = this.trigger(served, owner, value, bytes)
        else throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', `${contract[0].type} is not served by this network`)
        this.pending.push(landed)
        this.landed.set(txid, landed)
        return txid
    }

    /** Bandwidth from free allowance or burned; returns [netUsage, netFee] without touching the state. */
    private bandwidth(account: Account, bytes: number): [number, bigint] {
        if (PARAMS.freeNetLimit - this.freeNetUsed(account) >= bytes) return [bytes, 0n]
        const burn = BigInt(bytes) * PARAMS.transactionFee
        if (account.balance < burn) throw new BroadcastRefused('BANDWITH_ERROR', 'Account resource insufficient error.')
        return [0, burn]
    }

    private consumeFree(account: Account, bytes: number): void {
        account.freeNetUsage = this.freeNetUsed(account) + bytes
        account.latestConsumeFreeTime = this.head.timestamp
    }

    private transfer(tx: SignedJson, owner: string, value: any, bytes: number): Landed {
        const state = this.live
        const account = state.accounts.get(owner)
        if (!account) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, no OwnerAccount.')
        let to: string
        try {
            to = parseAddress(value.to_address, tx.visible === true)
        } catch {
            throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Invalid toAddress!')
        }
        const amount = BigInt(value.amount ?? 0)
        if (amount <= 0n) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Amount must be greater than 0.')
        if (to === owner) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Cannot transfer TRX to yourself.')
        const creates = !state.accounts.has(to)
        let netUsage = 0
        let netFee: bigint
        if (creates) {
            netFee = PARAMS.createAccountFee
            if (account.balance < netFee) throw new BroadcastRefused('BANDWITH_ERROR', 'Account resource insufficient error: cannot pay for creating the new account.')
        } else {
            ;[netUsage, netFee] = this.bandwidth(account, bytes)
        }
        const systemFee = creates ? PARAMS.newAccountFee : 0n
        if (account.balance - netFee < amount + systemFee) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.')
        if (netUsage > 0) this.consumeFree(account, bytes)
        account.balance -= netFee + systemFee + amount
        if (creates) state.accounts.set(to, { balance: 0n, createTime: this.head.timestamp, freeNetUsage: 0, latestConsumeFreeTime: 0 })
        state.accounts.get(to)!.balance += amount
        return {
            txid: tx.txID, tx, type: 'TransferContract', owner, to, amount, contractRet: 'SUCCESS', fee: netFee + systemFee,
            netUsage, netFee, energyUsage: 0n, energyFee: 0n, bytes, logs: [], tokenTransfers: [], contractResult: '',
        }
    }

    private trigger(tx: SignedJson, owner: string, value: any, bytes: number): Landed {
        const state = this.live
        const account = state.accounts.get(owner)
        if (!account) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Validate TriggerSmartContract error, no OwnerAccount.')
        let contract: string
        try {
            contract = parseAddress(value.contract_address, tx.visible === true)
        } catch {
            throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Invalid contract address')
        }
        if (contract !== this.usdtHex) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'No contract or not a smart contract')
        const feeLimit = BigInt(tx.raw_data.fee_limit ?? 0)
        if (feeLimit < 0n || feeLimit > PARAMS.maxFeeLimit) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', `feeLimit must be >= 0 and <= ${PARAMS.maxFeeLimit}`)
        const [netUsage, netFee] = this.bandwidth(account, bytes)
        const spendable = account.balance - netFee
        const energyLimit = (feeLimit < spendable ? feeLimit : spendable) / this.energyPrice
        const call = this.execute(owner, String(value.data ?? ''), BigInt(value.call_value ?? 0))
        let contractRet: Landed['contractRet'] = call.ok ? 'SUCCESS' : 'REVERT'
        let energyUsage = call.energy
        if (energyUsage > energyLimit) {
            contractRet = 'OUT_OF_ENERGY'
            energyUsage = energyLimit
        }
        const energyFee = energyUsage * this.energyPrice
        if (netUsage > 0) this.consumeFree(account, bytes)
        account.balance -= netFee + energyFee
        const logs: Landed['logs'] = []
        const tokenTransfers: Landed['tokenTransfers'] = []
        if (contractRet === 'SUCCESS' && call.transfer) {
            const { to, value: amount } = call.transfer
            state.usdt.set(owner, (state.usdt.get(owner) ?? 0n) - amount)
            state.usdt.set(to, (state.usdt.get(to) ?? 0n) + amount)
            tokenTransfers.push({ from: owner, to, value: amount })
            logs.push({
                address: this.usdtHex.slice(2),
                topics: [TRANSFER_TOPIC, owner.slice(2).padStart(64, '0'), to.slice(2).padStart(64, '0')],
                data: amount.toString(16).padStart(64, '0'),
            })
        }
        return {
            txid: tx.txID, tx, type: 'TriggerSmartContract', owner, to: contract, amount: 0n, contractRet, fee: netFee + energyFee,
            netUsage, netFee, energyUsage, energyFee, bytes, logs, tokenTransfers,
            contractResult: contractRet === 'SUCCESS' ? call.result : '',
        }
    }

    /** The USDT contract's code, as far as the bridge calls it. */
    execute(owner: string, data: string, callValue: bigint): { ok: boolean; energy: bigint; result: string; transfer?: { to: string; value: bigint } } {
        const word = (n: bigint) => n.toString(16).padStart(64, '0')
        const text = (s: string) => word(32n) + word(BigInt(s.length)) + Buffer.from(s).toString('hex').padEnd(64, '0')
        const selector = data.slice(0, 8).toLowerCase()
        const args = data.slice(8)
        const revert = { ok: false, energy: USDT_REVERT_ENERGY, result: '' }
        if (callValue !== 0n) return revert
        const balances = this.live.usdt
        switch (selector) {
            case '70a08231': {
                if (args.length !== 64) return revert
                return { ok: true, energy: 1_000n, result: word(balances.get('41' + args.slice(24)) ?? 0n) }
            }
            case '313ce567':
                return { ok: true, energy: 500n, result: word(6n) }
            case '95d89b41':
                return { ok: true, energy: 1_000n, result: text('USDT') }
            case '06fdde03':
                return { ok: true, energy: 1_000n, result: text('Tether USD') }
            case '18160ddd':
                return { ok: true, energy: 500n, result: word([...balances.values()].reduce((a, b) => a + b, 0n)) }
            case 'a9059cbb': {
                if (args.length !== 128 || !/^0{24}/.test(args.slice(0, 64))) return revert
                const to = '41' + args.slice(24, 64)
                const value = BigInt('0x' + args.slice(64))
                if ((balances.get(owner) ?? 0n) < value || to === '41' + '00'.repeat(20)) return revert
                const energy = (balances.get(to) ?? 0n) > 0n ? USDT_ENERGY_TO_HOLDER : USDT_ENERGY_TO_NEW_HOLDER
                return { ok: true, energy, result: word(1n), transfer: { to, value } }
            }
            default:
                return revert
        }
    }

    /** An unsigned transaction as java-tron's transaction builders return it, bound to the head block. */
    build(type: 'TransferContract' | 'TriggerSmartContract', value: Record<string, unknown>, feeLimit?: bigint): { visible: false; txID: string; raw_data: any; raw_data_hex: string } {
        const head = this.head
        const raw_data: any = {
            contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
            ref_block_bytes: (head.number & 0xffff).toString(16).padStart(4, '0'),
            ref_block_hash: head.id.slice(16, 32),
            expiration: head.timestamp + 60_000,
            ...(feeLimit === undefined ? {} : { fee_limit: Number(feeLimit) }),
            timestamp: head.timestamp,
        }
        const pb = utils.transaction.txJsonToPb({ visible: false, raw_data })
        const raw_data_hex = utils.transaction.txPbToRawDataHex(pb).toLowerCase()
        return { visible: false, txID: sha256(Buffer.from(raw_data_hex, 'hex')).toString('hex'), raw_data, raw_data_hex }
    }

    private faucetSend(type: 'TransferContract' | 'TriggerSmartContract', value: Record<string, unknown>, feeLimit?: bigint): string {
        const tx = this.build(type, value, feeLimit)
        return this.submit({ ...tx, signature: [signDigest(this.faucetKey, Buffer.from(tx.txID, 'hex'))] })
    }

    /** Test hook: the faucet sends TRX (a signed TransferContract) and, unless told not to, a block holds it. */
    fundTrx(address: string, sun: bigint, options: { mine?: boolean } = {}): string {
        const txid = this.faucetSend('TransferContract', { amount: Number(sun), owner_address: this.faucetHex, to_address: toHex(address) })
        if (options.mine !== false) this.mine()
        return txid
    }

    /** Test hook: the faucet sends USDT (a signed transfer call) and, unless told not to, a block holds it. */
    fundUsdt(address: string, amount: bigint, options: { mine?: boolean } = {}): string {
        const data = 'a9059cbb' + toHex(address).slice(2).padStart(64, '0') + amount.toString(16).padStart(64, '0')
        const txid = this.faucetSend('TriggerSmartContract', { data, owner_address: this.faucetHex, contract_address: this.usdtHex }, 1_000_000_000n)
        if (options.mine !== false) this.mine()
        return txid
    }

    /** A canonical block by number, in the solidified view when asked. */
    block(number: number, solidified = false): Block | undefined {
        if (number < 0 || number > (solidified ? this.solidifiedNumber : this.head.number)) return undefined
        return this.blocks[number]
    }

    /** A transaction of a canonical block (at or below the solidified height when asked). */
    mined(txid: string, solidified = false): Landed | undefined {
        const t = this.landed.get(txid.toLowerCase())
        if (t?.block === undefined) return undefined
        return solidified && t.block > this.solidifiedNumber ? undefined : t
    }

    /** Canonical transactions in block order, the ones of `address` (41… hex) only. */
    history(hex: string): Landed[] {
        return this.blocks.flatMap((b) => b.txids.map((id) => this.landed.get(id)!)).filter((t) => t.owner === hex || t.to === hex || t.tokenTransfers.some((x) => x.to === hex || x.from === hex))
    }
}

/** The 41… hex address a 65-byte r‖s‖v signature over txID recovers to, or undefined. */
function recoverSigner(txid: string, signature: string): string | undefined {
    if (!/^[0-9a-f]{130}$/i.test(signature)) return undefined
    let v = parseInt(signature.slice(128), 16)
    if (v >= 27) v -= 27
    if (v !== 0 && v !== 1) return undefined
    try {
        const publicKey = ecc.recover(Buffer.from(txid, 'hex'), Buffer.from(signature.slice(0, 128), 'hex'), v as 0 | 1, false)
        return publicKey ? toHex(publicKeyToAddress(publicKey)) : undefined
    } catch {
        return undefined
    }
}
