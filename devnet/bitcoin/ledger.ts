import * as bitcoin from 'bitcoinjs-lib'
import { ECPairFactory, ECPairInterface } from 'ecpair'
import * as ecc from 'tiny-secp256k1'

/**
 * The local Bitcoin network's chain (docs/bridge/README.md#local-chains-npm-start), served by the
 * Esplora API (esplora.ts) and Bitcoin Core's JSON-RPC (core-rpc.ts): blocks with real headers
 * (regtest proof of work, merkle roots, BIP-34 heights, segwit witness commitments), a mempool and
 * the UTXO set. Every transaction submitted goes through checks of the kind a node makes:
 *   - it decodes (bitcoinjs), is not a coinbase, has inputs and outputs, no duplicate inputs;
 *   - each input spends an output that exists, unspent, in the chain or the mempool (coinbase
 *     outputs only after 100 blocks); a conflict with the mempool is a replacement that must
 *     outbid what it evicts (full RBF, BIP-125 rules 3, 4 and 6);
 *   - each input is a P2WPKH spend whose witness key hashes to the output's program and whose
 *     signature verifies (BIP-143 sighash, low-S DER) for that output's value;
 *   - outputs are not dust (Bitcoin Core's rule at 3 sat/vB), inputs cover outputs, and the fee
 *     pays at least 1 sat/vB.
 * Refusals carry Bitcoin Core's codes and reasons (-25 missing inputs, -26 policy/consensus,
 * -27 already in the chain), the way Esplora passes them on.
 *
 * Nothing mines on its own: mine(n) makes blocks (the devnet calls it on a timer, tests when they
 * choose). For tests: fund(address, value) from the faucet that owns the coinbases, reorg(depth)
 * and fee estimates to set.
 */

bitcoin.initEccLib(ecc)
const ECPair = ECPairFactory(ecc)

export type LedgerNetwork = 'mainnet' | 'testnet' | 'regtest'

/** A chain to continue: its blocks after genesis as raw hex, in order, and the mempool's raw transactions. */
export interface SavedChain {
    extraNonce: number
    blocks: string[]
    mempool: string[]
}

export interface LedgerOptions {
    /** The key every coinbase pays, and fund() spends from; a random one by default. */
    faucet?: ECPairInterface
    /** Scripts the first coinbases after genesis pay instead, `coinbasesEach` blocks each in turn (their coins mature with the blocks after). */
    premine?: { scripts: Uint8Array[]; coinbasesEach: number }
    /** Continue this chain instead of mining a new one. */
    saved?: SavedChain
}

const PARAMS: Record<LedgerNetwork, bitcoin.Network> = {
    mainnet: bitcoin.networks.bitcoin,
    testnet: bitcoin.networks.testnet,
    regtest: bitcoin.networks.regtest,
}

/** Genesis headers of the real networks (Bitcoin Core chainparams.cpp): block 0 here hashes as theirs does. */
const GENESIS: Record<LedgerNetwork, { time: number; bits: number; nonce: number }> = {
    mainnet: { time: 1231006505, bits: 0x1d00ffff, nonce: 2083236893 },
    testnet: { time: 1296688602, bits: 0x1d00ffff, nonce: 414098458 },
    regtest: { time: 1296688602, bits: 0x207fffff, nonce: 2 },
}
const GENESIS_MERKLE_ROOT = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b'
/** Blocks after genesis use regtest's easy target whatever the network: a real header, found in a couple of tries. */
const MINING_BITS = 0x207fffff
const SUBSIDY = 5_000_000_000n
const COINBASE_MATURITY = 100
const MAX_MONEY = 2_100_000_000_000_000n
const DUST_RELAY_FEE = 3000n // sat/kvB
const FAUCET_FEE = 1_000n

export class Rejection extends Error {
    constructor(readonly code: number, readonly reason: string) {
        super(reason)
    }
}

export interface StoredTx {
    tx: bitcoin.Transaction
    txid: string
    raw: string
    /** Outputs the inputs spend, in input order; empty for a coinbase. */
    prevouts: { script: Uint8Array; value: bigint }[]
    fee: bigint
    vsize: number
}

export interface BlockRecord {
    hash: string
    height: number
    time: number
    header: bitcoin.Block
    txids: string[]
    size: number
    weight: number
}

interface Output {
    txid: string
    vout: number
    script: Uint8Array
    value: bigint
    coinbase: boolean
    /** Height of the block that created it; null while its transaction is in the mempool. */
    height: number | null
}

const key = (txid: string, vout: number) => `${txid}:${vout}`
const txidBytes = (txid: string) => Uint8Array.from(Buffer.from(txid, 'hex').reverse())
const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

function isP2wpkh(script: Uint8Array): boolean {
    return script.length === 22 && script[0] === 0x00 && script[1] === 0x14
}

function isWitnessProgram(script: Uint8Array): boolean {
    return script.length >= 4 && script.length <= 42 && (script[0] === 0x00 || (script[0] >= 0x51 && script[0] <= 0x60)) && script[1] + 2 === script.length
}

/** Bitcoin Core's GetDustThreshold at the default dust relay fee. */
export function dustThreshold(script: Uint8Array): bigint {
    if (script.length > 0 && script[0] === 0x6a) return 0n // OP_RETURN: unspendable, never dust
    const outputSize = 8 + varIntSize(script.length) + script.length
    const spendSize = isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4
    return (BigInt(outputSize + spendSize) * DUST_RELAY_FEE) / 1000n
}

function varIntSize(n: number): number {
    return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5
}

function scriptNum(n: number): Uint8Array {
    return bitcoin.script.number.encode(n)
}

export class Ledger {
    readonly params: bitcoin.Network
    readonly blocks: BlockRecord[] = []
    /** Every transaction of the best chain and of the mempool. */
    readonly txs = new Map<string, StoredTx>()
    readonly mempool = new Map<string, StoredTx>()
    /** Height of each confirmed transaction's block. */
    private confirmedAt = new Map<string, number>()
    private utxos = new Map<string, Output>()
    /** Confirmed spends: outpoint → spending txid and input index. */
    private chainSpends = new Map<string, { txid: string; vin: number }>()
    private mempoolSpends = new Map<string, { txid: string; vin: number }>()
    private extraNonce = 0
    readonly faucet: ECPairInterface
    readonly faucetScript: Uint8Array
    /** What GET /fee-estimates serves: confirmation target → sat/vB (floats, as Esplora writes them). */
    feeEstimates: Record<string, number> = { '1': 20.5, '2': 15.25, '3': 10.125, '6': 5.5, '144': 1.5, '504': 1.01, '1008': 1.0 }
    minRelayFeeRate = 1000n // sat/kvB

    constructor(readonly network: LedgerNetwork = 'regtest', options: LedgerOptions = {}) {
        this.params = PARAMS[network]
        this.faucet = options.faucet ?? ECPair.makeRandom({ network: this.params })
        this.faucetScript = bitcoin.payments.p2wpkh({ pubkey: this.faucet.publicKey }).output!
        const { time, bits, nonce } = GENESIS[network]
        const genesis = new bitcoin.Block()
        genesis.version = 1
        genesis.prevHash = new Uint8Array(32)
        genesis.merkleRoot = txidBytes(GENESIS_MERKLE_ROOT)
        genesis.timestamp = time
        genesis.bits = bits
        genesis.nonce = nonce
        // The genesis coinbase is unspendable in Bitcoin too; it is left out of the UTXO set.
        this.blocks.push({ hash: genesis.getId(), height: 0, time, header: genesis, txids: [], size: 285, weight: 1140 })
        if (options.saved) {
            this.replay(options.saved)
            return
        }
        for (const script of options.premine?.scripts ?? []) {
            for (let i = 0; i < options.premine!.coinbasesEach; i++) this.mine(1, { payTo: script })
        }
        // Coinbases mature after 100 blocks: the faucet (and the premined scripts) have coins to spend from the start.
        this.mine(COINBASE_MATURITY + 1)
    }

    /** The chain as SavedChain keeps it; `fromHeight` leaves out the blocks below it (already saved). */
    save(fromHeight = 1): SavedChain {
        return {
            extraNonce: this.extraNonce,
            blocks: this.blocks.slice(Math.max(1, fromHeight)).map((b) => b.header.toHex()),
            mempool: [...this.mempool.values()].map((s) => s.raw),
        }
    }

    /** Connects saved blocks as they were mined (their transactions were checked then), and resubmits the saved mempool. */
    private replay(saved: SavedChain): void {
        for (const hex of saved.blocks) {
            const header = bitcoin.Block.fromHex(hex)
            const txs = header.transactions ?? []
            const height = this.tipHeight + 1
            if (hexOf(header.prevHash!) !== hexOf(txidBytes(this.tip.hash))) throw new Error(`saved block ${height} does not follow block ${height - 1}`)
            this.blocks.push({
                hash: header.getId(), height, time: header.timestamp, header, txids: txs.map((t) => t.getId()),
                size: header.byteLength(), weight: header.weight(),
            })
            for (const tx of txs) {
                const prevouts = tx.isCoinbase() ? [] : tx.ins.map((input) => {
                    const prev = this.output(Buffer.from(input.hash).reverse().toString('hex'), input.index)
                    if (!prev) throw new Error(`saved block ${height} spends an output the chain does not have`)
                    return { script: prev.script, value: prev.value }
                })
                const fee = prevouts.reduce((sum, p) => sum + p.value, 0n) - tx.outs.reduce((sum, o) => sum + o.value, 0n)
                this.connect({ tx, txid: tx.getId(), raw: tx.toHex(), prevouts, fee: tx.isCoinbase() ? 0n : fee, vsize: tx.virtualSize() }, height)
            }
        }
        this.extraNonce = saved.extraNonce
        for (const raw of saved.mempool) {
            try {
                this.submit(raw)
            } catch {
                // No longer valid (a block saved after it spent its inputs): dropped, as a restarted node would.
            }
        }
    }

    get tipHeight(): number {
        return this.blocks.length - 1
    }

    get tip(): BlockRecord {
        return this.blocks[this.blocks.length - 1]
    }

    blockByHash(hash: string): BlockRecord | undefined {
        return this.blocks.find((b) => b.hash === hash)
    }

    heightOf(txid: string): number | undefined {
        return this.confirmedAt.get(txid)
    }

    scriptOf(address: string): Uint8Array {
        return bitcoin.address.toOutputScript(address, this.params)
    }

    addressOf(script: Uint8Array): string | undefined {
        try {
            return bitcoin.address.fromOutputScript(script, this.params)
        } catch {
            return undefined
        }
    }

    /** The output an outpoint names, while it exists in the chain or the mempool. */
    output(txid: string, vout: number): Output | undefined {
        const confirmed = this.utxos.get(key(txid, vout))
        if (confirmed) return confirmed
        const stored = this.txs.get(txid)
        if (!stored || vout >= stored.tx.outs.length) return undefined
        const out = stored.tx.outs[vout]
        return { txid, vout, script: out.script, value: out.value, coinbase: stored.tx.isCoinbase(), height: this.confirmedAt.get(txid) ?? null }
    }

    /** The transaction spending an output, in the chain or in the mempool. */
    spender(txid: string, vout: number): { txid: string; vin: number } | undefined {
        return this.chainSpends.get(key(txid, vout)) ?? this.mempoolSpends.get(key(txid, vout))
    }

    /** Unspent outputs (not spent in the mempool either) paying a script. */
    unspentOf(script: Uint8Array): Output[] {
        const hex = hexOf(script)
        const found: Output[] = []
        for (const output of this.utxos.values()) {
            if (hexOf(output.script) === hex && !this.mempoolSpends.has(key(output.txid, output.vout))) found.push(output)
        }
        for (const stored of this.mempool.values()) {
            stored.tx.outs.forEach((out, vout) => {
                if (hexOf(out.script) === hex && !this.mempoolSpends.has(key(stored.txid, vout))) {
                    found.push({ txid: stored.txid, vout, script: out.script, value: out.value, coinbase: false, height: null })
                }
            })
        }
        return found
    }

    /** Transactions touching a script (paying it, or spending from it): mempool ones, then confirmed newest first. */
    historyOf(script: Uint8Array): StoredTx[] {
        const hex = hexOf(script)
        const touches = (s: StoredTx) => s.tx.outs.some((o) => hexOf(o.script) === hex) || s.prevouts.some((p) => hexOf(p.script) === hex)
        const mempool = [...this.mempool.values()].filter(touches).reverse()
        const confirmed: StoredTx[] = []
        for (let h = this.tipHeight; h >= 0; h--) {
            for (const txid of [...this.blocks[h].txids].reverse()) {
                const stored = this.txs.get(txid)!
                if (touches(stored)) confirmed.push(stored)
            }
        }
        return [...mempool, ...confirmed]
    }

    /** Validates a raw transaction and puts it in the mempool; its txid. Throws Rejection. */
    submit(raw: string): string {
        let tx: bitcoin.Transaction
        try {
            tx = bitcoin.Transaction.fromHex(raw)
        } catch {
            throw new Rejection(-22, 'TX decode failed')
        }
        const txid = tx.getId()
        if (this.mempool.has(txid)) return txid // Bitcoin Core answers a known mempool transaction with its txid.
        if (this.confirmedAt.has(txid)) {
            const anyUnspent = tx.outs.some((_, vout) => this.utxos.has(key(txid, vout)))
            if (anyUnspent) throw new Rejection(-27, 'Transaction outputs already in utxo set')
            throw new Rejection(-25, 'bad-txns-inputs-missingorspent')
        }
        if (tx.isCoinbase()) throw new Rejection(-26, 'coinbase')
        if (tx.version < 1 || tx.version > 3) throw new Rejection(-26, 'version')
        if (tx.ins.length === 0) throw new Rejection(-26, 'bad-txns-vin-empty')
        if (tx.outs.length === 0) throw new Rejection(-26, 'bad-txns-vout-empty')
        const seen = new Set<string>()
        for (const input of tx.ins) {
            const k = key(Buffer.from(input.hash).reverse().toString('hex'), input.index)
            if (seen.has(k)) throw new Rejection(-26, 'bad-txns-inputs-duplicate')
            seen.add(k)
        }
        let outTotal = 0n
        for (const out of tx.outs) {
            if (out.value < 0n) throw new Rejection(-26, 'bad-txns-vout-negative')
            if (out.value > MAX_MONEY) throw new Rejection(-26, 'bad-txns-vout-toolarge')
            outTotal += out.value
            if (out.value < dustThreshold(out.script)) throw new Rejection(-26, 'dust')
        }
        if (outTotal > MAX_MONEY) throw new Rejection(-26, 'bad-txns-txouttotal-toolarge')
        if (tx.locktime !== 0 && tx.ins.some((i) => i.sequence !== 0xffffffff) && tx.locktime < 500_000_000 && tx.locktime > this.tipHeight) {
            throw new Rejection(-26, 'non-final')
        }

        const prevouts: StoredTx['prevouts'] = []
        const conflicts = new Set<string>()
        let inTotal = 0n
        tx.ins.forEach((input) => {
            const prevTxid = Buffer.from(input.hash).reverse().toString('hex')
            const k = key(prevTxid, input.index)
            if (this.chainSpends.has(k)) throw new Rejection(-25, 'bad-txns-inputs-missingorspent')
            const prev = this.output(prevTxid, input.index)
            if (!prev) throw new Rejection(-25, 'bad-txns-inputs-missingorspent')
            if (prev.coinbase && (prev.height === null || this.tipHeight + 1 - prev.height < COINBASE_MATURITY)) {
                throw new Rejection(-26, `bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth ${prev.height === null ? 0 : this.tipHeight + 1 - prev.height}`)
            }
            const inMempool = this.mempoolSpends.get(k)
            if (inMempool) conflicts.add(inMempool.txid)
            prevouts.push({ script: prev.script, value: prev.value })
            inTotal += prev.value
        })
        // A transaction spending an output of one it would evict cannot stand.
        const evicted = this.withDescendants(conflicts)
        for (const input of tx.ins) if (evicted.has(Buffer.from(input.hash).reverse().toString('hex'))) throw new Rejection(-26, 'bad-txns-spends-conflicting-tx')

        tx.ins.forEach((input, i) => this.verifyInput(tx, i, prevouts[i]))

        if (inTotal < outTotal) throw new Rejection(-26, `bad-txns-in-belowout, value in (${inTotal}) < value out (${outTotal})`)
        const fee = inTotal - outTotal
        const vsize = tx.virtualSize()
        const minFee = (BigInt(vsize) * this.minRelayFeeRate + 999n) / 1000n
        if (fee < minFee) throw new Rejection(-26, `min relay fee not met, ${fee} < ${minFee}`)

        if (evicted.size > 0) {
            let evictedFees = 0n
            for (const txid of evicted) evictedFees += this.mempool.get(txid)!.fee
            for (const txid of conflicts) {
                const old = this.mempool.get(txid)!
                if (fee * BigInt(old.vsize) <= old.fee * BigInt(vsize)) {
                    throw new Rejection(-26, `insufficient fee, rejecting replacement ${txid}; new feerate is not above the old one`)
                }
            }
            if (fee < evictedFees + minFee) throw new Rejection(-26, `insufficient fee, rejecting replacement ${[...conflicts][0]}, not enough additional fees to relay`)
            for (const txid of evicted) this.dropFromMempool(txid)
        }

        const stored: StoredTx = { tx, txid, raw: tx.toHex(), prevouts, fee, vsize }
        this.mempool.set(txid, stored)
        this.txs.set(txid, stored)
        tx.ins.forEach((input, vin) => this.mempoolSpends.set(key(Buffer.from(input.hash).reverse().toString('hex'), input.index), { txid, vin }))
        return txid
    }

    private verifyInput(tx: bitcoin.Transaction, index: number, prevout: { script: Uint8Array; value: bigint }): void {
        const input = tx.ins[index]
        if (!isP2wpkh(prevout.script)) {
            throw new Rejection(-26, 'non-mandatory-script-verify-flag (this local network verifies P2WPKH spends only)')
        }
        if (input.script.length !== 0) throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Witness requires empty scriptSig)')
        if (input.witness.length !== 2) throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Witness program hash mismatch)')
        const [signature, pubkey] = input.witness
        if (pubkey.length !== 33 || !ecc.isPoint(pubkey)) {
            throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Using non-compressed keys in segwit)')
        }
        const program = prevout.script.subarray(2)
        if (hexOf(bitcoin.crypto.hash160(pubkey)) !== hexOf(program)) {
            throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Witness program hash mismatch)')
        }
        let decoded: { signature: Uint8Array; hashType: number }
        try {
            decoded = bitcoin.script.signature.decode(signature)
        } catch {
            throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Non-canonical DER signature)')
        }
        const scriptCode = bitcoin.payments.p2pkh({ hash: program }).output!
        const sighash = tx.hashForWitnessV0(index, scriptCode, prevout.value, decoded.hashType)
        // strict: high-S signatures are non-standard (BIP-146 LOW_S) as in Bitcoin Core.
        if (!ecc.verify(sighash, pubkey, decoded.signature, true)) {
            throw new Rejection(-26, 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)')
        }
    }

    /** Mempool transactions in `roots` and every mempool transaction spending their outputs, recursively. */
    private withDescendants(roots: Set<string>): Set<string> {
        const all = new Set(roots)
        let grew = true
        while (grew) {
            grew = false
            for (const stored of this.mempool.values()) {
                if (all.has(stored.txid)) continue
                if (stored.tx.ins.some((i) => all.has(Buffer.from(i.hash).reverse().toString('hex')))) {
                    all.add(stored.txid)
                    grew = true
                }
            }
        }
        return all
    }

    private dropFromMempool(txid: string): void {
        const stored = this.mempool.get(txid)
        if (!stored) return
        this.mempool.delete(txid)
        this.txs.delete(txid)
        for (const input of stored.tx.ins) {
            const k = key(Buffer.from(input.hash).reverse().toString('hex'), input.index)
            if (this.mempoolSpends.get(k)?.txid === txid) this.mempoolSpends.delete(k)
        }
    }

    /** Mines n blocks, the first taking the whole mempool; each coinbase pays the faucet (or `payTo`). The new block hashes. */
    mine(n = 1, opts: { empty?: boolean; payTo?: Uint8Array } = {}): string[] {
        const hashes: string[] = []
        for (let i = 0; i < n; i++) {
            const included = opts.empty ? [] : [...this.mempool.values()]
            const height = this.tipHeight + 1
            const fees = included.reduce((sum, s) => sum + s.fee, 0n)
            const coinbase = new bitcoin.Transaction()
            coinbase.version = 2
            // BIP-34 height, then an extra nonce so that replacement blocks of a reorg differ.
            coinbase.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, bitcoin.script.compile([scriptNum(height), scriptNum(++this.extraNonce)]))
            coinbase.addOutput(opts.payTo ?? this.faucetScript, SUBSIDY + fees)
            const txs = [coinbase, ...included.map((s) => s.tx)]
            if (included.some((s) => s.tx.hasWitnesses())) {
                // BIP-141 commitment: the witness merkle root (coinbase's wtxid counted as zero) with the 32-byte reserved value.
                const reserved = new Uint8Array(32)
                coinbase.setWitness(0, [reserved])
                const witnessRoot = bitcoin.Block.calculateMerkleRoot(txs, true)
                const commitment = bitcoin.crypto.hash256(Buffer.concat([witnessRoot, reserved]))
                coinbase.addOutput(bitcoin.script.compile([bitcoin.opcodes.OP_RETURN, Buffer.concat([Buffer.from('aa21a9ed', 'hex'), commitment])]), 0n)
            }
            const header = new bitcoin.Block()
            header.version = 0x20000000
            header.prevHash = txidBytes(this.tip.hash)
            header.merkleRoot = bitcoin.Block.calculateMerkleRoot(txs)
            header.timestamp = Math.max(this.tip.time + 1, Math.floor(Date.now() / 1000))
            header.bits = MINING_BITS
            header.nonce = 0
            while (!header.checkProofOfWork()) header.nonce++
            header.transactions = txs
            const coinbaseStored: StoredTx = { tx: coinbase, txid: coinbase.getId(), raw: coinbase.toHex(), prevouts: [], fee: 0n, vsize: coinbase.virtualSize() }
            const record: BlockRecord = {
                hash: header.getId(), height, time: header.timestamp, header, txids: txs.map((t) => t.getId()),
                size: header.byteLength(), weight: header.weight(),
            }
            this.blocks.push(record)
            this.connect(coinbaseStored, height)
            for (const stored of included) {
                this.mempool.delete(stored.txid)
                this.connect(stored, height)
            }
            this.mempoolSpends = new Map([...this.mempoolSpends].filter(([, s]) => this.mempool.has(s.txid)))
            hashes.push(record.hash)
        }
        return hashes
    }

    private connect(stored: StoredTx, height: number): void {
        this.txs.set(stored.txid, stored)
        this.confirmedAt.set(stored.txid, height)
        if (!stored.tx.isCoinbase()) {
            stored.tx.ins.forEach((input, vin) => {
                const k = key(Buffer.from(input.hash).reverse().toString('hex'), input.index)
                this.utxos.delete(k)
                this.chainSpends.set(k, { txid: stored.txid, vin })
            })
        }
        stored.tx.outs.forEach((out, vout) => {
            if (out.script.length > 0 && out.script[0] === 0x6a) return
            this.utxos.set(key(stored.txid, vout), { txid: stored.txid, vout, script: out.script, value: out.value, coinbase: stored.tx.isCoinbase(), height })
        })
    }

    /**
     * Replaces the last `depth` blocks: their transactions go back to the mempool (except those in
     * `drop`, as if a conflicting spend had won elsewhere, and any that no longer validate), then
     * `mine` new blocks (default depth + 1, a longer chain) take them again unless `empty`.
     */
    reorg(depth: number, opts: { drop?: string[]; mine?: number; empty?: boolean } = {}): void {
        if (depth < 1 || depth >= this.blocks.length) throw new Error(`cannot reorg ${depth} blocks of ${this.blocks.length}`)
        const removed = this.blocks.splice(this.blocks.length - depth, depth)
        const pending = [...this.mempool.values()]
        const resubmit: StoredTx[] = []
        for (const block of removed) for (const txid of block.txids.slice(1)) resubmit.push(this.txs.get(txid)!)
        const drop = new Set(opts.drop ?? [])
        // Rebuild the chain state from the blocks that remain: simple, and a test chain is short.
        const kept = this.blocks.flatMap((b) => b.txids.map((txid) => ({ stored: this.txs.get(txid)!, height: b.height })))
        this.txs.clear()
        this.mempool.clear()
        this.confirmedAt.clear()
        this.utxos.clear()
        this.chainSpends.clear()
        this.mempoolSpends.clear()
        for (const { stored, height } of kept) this.connect(stored, height)
        for (const stored of [...resubmit, ...pending]) {
            if (drop.has(stored.txid)) continue
            try {
                this.submit(stored.raw)
            } catch {
                // No longer valid on the new chain (its inputs went with the old blocks): gone, as a node would drop it.
            }
        }
        this.mine(opts.mine ?? depth + 1, { empty: opts.empty })
    }

    /** Pays `value` satoshi to an address (of this network) from the faucet; the transaction enters the mempool. */
    fund(address: string, value: bigint): { txid: string; vout: number } {
        return this.fundScript(this.scriptOf(address), value)
    }

    fundScript(script: Uint8Array, value: bigint): { txid: string; vout: number } {
        const coins = this.unspentOf(this.faucetScript)
            .filter((c) => !c.coinbase || (c.height !== null && this.tipHeight + 1 - c.height >= COINBASE_MATURITY))
            .sort((a, b) => (a.value > b.value ? -1 : 1))
        const coin = coins.find((c) => c.value >= value + FAUCET_FEE + 1000n)
        if (!coin) throw new Error('the faucet has no coin large enough; mine more blocks')
        const tx = new bitcoin.Transaction()
        tx.version = 2
        tx.addInput(txidBytes(coin.txid), coin.vout, 0xfffffffd)
        tx.addOutput(script, value)
        tx.addOutput(this.faucetScript, coin.value - value - FAUCET_FEE)
        const scriptCode = bitcoin.payments.p2pkh({ pubkey: this.faucet.publicKey }).output!
        const sighash = tx.hashForWitnessV0(0, scriptCode, coin.value, bitcoin.Transaction.SIGHASH_ALL)
        tx.setWitness(0, [bitcoin.script.signature.encode(this.faucet.sign(sighash), bitcoin.Transaction.SIGHASH_ALL), this.faucet.publicKey])
        return { txid: this.submit(tx.toHex()), vout: 0 }
    }
}
