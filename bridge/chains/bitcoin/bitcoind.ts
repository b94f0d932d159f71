import { BitcoinBackend, BlockInfo, FeeEstimates, NodeRejection, OutSpend, TxInfo, TxStatus, Utxo } from './backend'
import { BoundedMap } from '../../../common/bounded-map'

/** Bitcoin Core's JSON-RPC as a backend, the adapter's addresses in a watch-only descriptor wallet (Core indexes no addresses): docs/bridge/networks.md#bitcoin */

const TIMEOUT_MS = 30_000
const FEE_TARGETS = [1, 2, 3, 6, 12, 24, 144, 504, 1008]
/** RPC_INVALID_ADDRESS_OR_KEY: no such transaction / block / mempool entry. */
const NOT_FOUND = -5
/** RPC_INVALID_PARAMETER: e.g. a block height past the tip. */
const OUT_OF_RANGE = -8
/** listtransactions entries asked per transaction wanted: one per output that pays or leaves the wallet. */
const ENTRIES_PER_TX = 4
/** Answers of spendsFrom kept (a bound, not a cache policy: each is a fact). */
const REMEMBERED = 10_000

export class BitcoindError extends Error {
    constructor(readonly code: number | null, message: string) {
        super(message)
    }
}

/** "0.00012345" BTC as satoshi. */
export function btcToSats(text: string): bigint {
    const match = /^(-?)(\d+)(?:\.(\d{0,8}))?$/.exec(text.trim())
    if (!match) throw new BitcoindError(null, `not a BTC amount: ${text}`)
    const sats = BigInt(match[2]) * 100_000_000n + BigInt((match[3] ?? '').padEnd(8, '0') || '0')
    return match[1] ? -sats : sats
}

/** JSON with every amount-like number kept as its decimal text. */
function parseExact(text: string): any {
    return JSON.parse(text.replace(/("(?:amount|value|feerate|fee)"\s*:\s*)(-?\d+(?:\.\d+)?)/g, '$1"$2"'))
}

interface WalletTx {
    confirmations: number
    blockhash?: string
    blockheight?: number
    blocktime?: number
    decoded?: RawTx
}

interface RawTx {
    txid: string
    vin: { txid?: string; vout?: number; coinbase?: string; prevout?: { value: string; scriptPubKey: { address?: string } } }[]
    vout: { value: string; n: number; scriptPubKey: { hex: string; address?: string } }[]
    blockhash?: string
    confirmations?: number
    blocktime?: number
}

export class BitcoindBackend implements BitcoinBackend {
    readonly kind = 'bitcoind' as const
    private readonly url: string
    private readonly auth: string | undefined
    private wallet: Promise<void> | undefined
    private id = 0
    /** Whether a transaction spends an output of an address (`txid address`). */
    private readonly spenders = new BoundedMap<string, boolean>(REMEMBERED)

    constructor(private readonly config: { url: string; username?: string; password?: string; wallet: string }) {
        const url = new URL(config.url)
        const username = config.username ?? decodeURIComponent(url.username)
        const password = config.password ?? decodeURIComponent(url.password)
        url.username = ''
        url.password = ''
        this.url = url.toString().replace(/\/+$/, '')
        this.auth = username || password ? 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64') : undefined
    }

    private async call<T>(method: string, params: unknown[], wallet = false): Promise<T> {
        if (wallet) await this.ensureWallet()
        const path = wallet ? `/wallet/${encodeURIComponent(this.config.wallet)}` : ''
        let response: Response
        try {
            response = await fetch(this.url + path, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ...(this.auth ? { authorization: this.auth } : {}) },
                body: JSON.stringify({ jsonrpc: '1.0', id: ++this.id, method, params }),
                signal: AbortSignal.timeout(TIMEOUT_MS),
            })
        } catch (err) {
            throw new BitcoindError(null, `bitcoind ${method}: ${(err as Error).message}`)
        }
        const text = await response.text()
        let body: { result: T; error: { code: number; message: string } | null }
        try {
            body = parseExact(text)
        } catch {
            throw new BitcoindError(null, `bitcoind ${method}: HTTP ${response.status} ${text.slice(0, 200)}`)
        }
        if (body.error) throw new BitcoindError(body.error.code, body.error.message)
        return body.result
    }

    private async tryCall<T>(method: string, params: unknown[], wallet = false): Promise<T | undefined> {
        try {
            return await this.call<T>(method, params, wallet)
        } catch (err) {
            if (err instanceof BitcoindError && (err.code === NOT_FOUND || err.code === OUT_OF_RANGE)) return undefined
            throw err
        }
    }

    /** The watch-only wallet, loaded or created once per process. */
    private ensureWallet(): Promise<void> {
        this.wallet ??= (async () => {
            const loaded = await this.call<string[]>('listwallets', [])
            if (loaded.includes(this.config.wallet)) return
            try {
                await this.call('loadwallet', [this.config.wallet, true])
            } catch (err) {
                // -18: no such wallet yet; -35: loaded already (another replica won the race).
                if (!(err instanceof BitcoindError) || (err.code !== -18 && err.code !== -35)) throw err
                if (err.code === -18) {
                    await this.call('createwallet', [this.config.wallet, true, true, '', false, true, true]).catch((e) => {
                        if (!(e instanceof BitcoindError) || e.code !== -4) throw e // -4: created meanwhile
                    })
                }
            }
        })().catch((err) => {
            this.wallet = undefined
            throw err
        })
        return this.wallet
    }

    async watch(address: string, rescanFrom: 'now' | number): Promise<void> {
        const info = await this.call<{ ismine: boolean; iswatchonly?: boolean }>('getaddressinfo', [address], true)
        if (info.ismine || info.iswatchonly) return
        const { descriptor } = await this.call<{ descriptor: string }>('getdescriptorinfo', [`addr(${address})`])
        const [result] = await this.call<{ success: boolean; error?: { message: string } }[]>(
            'importdescriptors', [[{ desc: descriptor, timestamp: rescanFrom, label: 'bridge' }]], true
        )
        if (!result.success) throw new BitcoindError(null, `importdescriptors ${address}: ${result.error?.message ?? 'failed'}`)
    }

    async tip(): Promise<BlockInfo> {
        const hash = await this.call<string>('getbestblockhash', [])
        const header = await this.call<{ hash: string; height: number; time: number }>('getblockheader', [hash, true])
        return { hash: header.hash, height: header.height, time: header.time }
    }

    async blockHash(height: number): Promise<string | undefined> {
        return this.tryCall<string>('getblockhash', [height])
    }

    async addressUtxos(address: string): Promise<Utxo[]> {
        const list = await this.call<{ txid: string; vout: number; amount: string; confirmations: number }[]>(
            'listunspent', [0, 9_999_999, [address], true], true
        )
        const utxos: Utxo[] = []
        for (const u of list) {
            const status = u.confirmations > 0 ? await this.txStatus(u.txid) : { confirmed: false }
            utxos.push({ txid: u.txid, vout: u.vout, value: btcToSats(u.amount), status: status ?? { confirmed: false } })
        }
        return utxos
    }

    private walletTx(txid: string): Promise<WalletTx | undefined> {
        return this.tryCall<WalletTx>('gettransaction', [txid, true, true], true)
    }

    async txStatus(txid: string): Promise<TxStatus | undefined> {
        const wallet = await this.walletTx(txid)
        if (wallet && wallet.confirmations > 0) {
            return { confirmed: true, blockHash: wallet.blockhash, blockHeight: wallet.blockheight, blockTime: wallet.blocktime }
        }
        if (await this.tryCall('getmempoolentry', [txid])) return { confirmed: false }
        if (wallet) return undefined // known to the wallet, but neither mined nor in the mempool (conflicted or evicted)
        // Not a wallet transaction: the node finds a mined one only with -txindex.
        const raw = await this.tryCall<RawTx>('getrawtransaction', [txid, 1])
        if (!raw?.blockhash) return undefined
        const header = await this.call<{ height: number; time: number }>('getblockheader', [raw.blockhash, true])
        return { confirmed: true, blockHash: raw.blockhash, blockHeight: header.height, blockTime: header.time }
    }

    async tx(txid: string): Promise<TxInfo | undefined> {
        const status = await this.txStatus(txid)
        if (!status) return undefined
        // Verbosity 2 adds each input's prevout (Core 25+) for mempool transactions and, with -txindex, mined ones.
        let raw = await this.tryCall<RawTx>('getrawtransaction', [txid, 2])
        if (!raw) raw = (await this.walletTx(txid))?.decoded
        if (!raw) return undefined
        return {
            txid,
            vin: raw.vin.map((i) => ({
                txid: i.txid ?? '', vout: i.vout ?? 0, isCoinbase: i.coinbase !== undefined,
                prevoutAddress: i.prevout?.scriptPubKey.address, prevoutValue: i.prevout ? btcToSats(i.prevout.value) : undefined,
            })),
            vout: raw.vout.map((o) => ({ value: btcToSats(o.value), address: o.scriptPubKey.address, scriptHex: o.scriptPubKey.hex })),
            status,
        }
    }

    async outspend(txid: string, vout: number): Promise<OutSpend | undefined> {
        if (!(await this.txStatus(txid))) return undefined
        if (await this.call<unknown>('gettxout', [txid, vout, true])) return { spent: false }
        const [mempool] = await this.call<{ spendingtxid?: string }[]>('gettxspendingprevout', [[{ txid, vout }]])
        if (mempool?.spendingtxid) return { spent: true, txid: mempool.spendingtxid, status: { confirmed: false } }
        // Spent in the chain. Our outputs are spent by our own transactions, which the wallet lists.
        const sends = await this.call<{ txid: string; category: string }[]>('listtransactions', ['*', 1000, 0, true], true)
        for (const txidOfSend of new Set(sends.filter((t) => t.category === 'send').map((t) => t.txid))) {
            const wallet = await this.walletTx(txidOfSend)
            if (wallet?.decoded?.vin.some((i) => i.txid === txid && i.vout === vout)) {
                return { spent: true, txid: txidOfSend, status: (await this.txStatus(txidOfSend)) ?? { confirmed: false } }
            }
        }
        return { spent: true, status: { confirmed: true } }
    }

    /**
     * The wallet's listtransactions (watch-only entries included): the newest `limit` transactions
     * among its entries, and of those in the 'send' category (a watched input spent) the ones with an
     * input whose previous output paid `address`, read off the wallet's copies of both transactions.
     * The wallet also watches every deposit address, so a gather is a 'send' too, but not the vault's.
     * Which address a transaction spends from never changes: each answer is remembered.
     */
    async sentFrom(address: string, limit: number): Promise<string[]> {
        const entries = await this.call<{ txid: string; category: string }[]>('listtransactions', ['*', limit * ENTRIES_PER_TX, 0, true], true)
        const newest = [...new Set(entries.map((e) => e.txid).reverse())].slice(0, limit)
        const sends = new Set(entries.filter((e) => e.category === 'send').map((e) => e.txid))
        const sent: string[] = []
        for (const txid of newest) {
            if (sends.has(txid) && (await this.spendsFrom(txid, address))) sent.push(txid)
        }
        return sent
    }

    private async spendsFrom(txid: string, address: string): Promise<boolean> {
        const key = `${txid} ${address}`
        let spends = this.spenders.get(key)
        if (spends === undefined) {
            const tx = (await this.walletTx(txid))?.decoded
            if (!tx) throw new BitcoindError(null, `bitcoind: the wallet lists ${txid} but does not decode it`)
            spends = false
            for (const input of tx.vin) {
                if (input.txid === undefined || input.vout === undefined) continue
                // The previous transaction paid a watched address (this one spends a watched input), so the wallet has it.
                const previous = (await this.walletTx(input.txid))?.decoded
                if (previous?.vout.find((o) => o.n === input.vout)?.scriptPubKey.address === address) {
                    spends = true
                    break
                }
            }
            this.spenders.set(key, spends)
        }
        return spends
    }

    async feeEstimates(): Promise<FeeEstimates> {
        const estimates: FeeEstimates = new Map()
        for (const target of FEE_TARGETS) {
            const answer = await this.call<{ feerate?: string; blocks: number }>('estimatesmartfee', [target, 'conservative'])
            // BTC per kvB, so its satoshi count is the rate in sat/kvB.
            if (answer.feerate) estimates.set(target, btcToSats(answer.feerate))
        }
        return estimates
    }

    async broadcast(rawHex: string): Promise<string> {
        try {
            return await this.call<string>('sendrawtransaction', [rawHex])
        } catch (err) {
            if (err instanceof BitcoindError && err.code !== null) throw new NodeRejection(err.code, err.message)
            throw err
        }
    }
}
