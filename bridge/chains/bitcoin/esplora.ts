import { BitcoinBackend, BlockInfo, FeeEstimates, NodeRejection, OutSpend, TxInfo, TxStatus, Utxo } from './backend'
import { parseSatPerVbyte } from './fees'

/** The Esplora REST API as a backend (electrs; blockstream.info/api and mempool.space/api serve it too): docs/bridge/networks.md#bitcoin */

const TIMEOUT_MS = 15_000
/** Confirmed transactions Esplora lists per page of an address's history. */
const CHAIN_PAGE = 25

interface EsploraStatus {
    confirmed: boolean
    block_height?: number
    block_hash?: string
    block_time?: number
}

interface EsploraTx {
    txid: string
    vin: { txid: string; vout: number; is_coinbase: boolean; prevout: { scriptpubkey_address?: string; value: number } | null }[]
    vout: { scriptpubkey: string; scriptpubkey_address?: string; value: number }[]
    status: EsploraStatus
}

export class EsploraError extends Error {}

function sats(value: unknown): bigint {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new EsploraError(`not a satoshi amount: ${String(value)}`)
    return BigInt(value)
}

function status(s: EsploraStatus): TxStatus {
    return s.confirmed
        ? { confirmed: true, blockHeight: s.block_height, blockHash: s.block_hash, blockTime: s.block_time }
        : { confirmed: false }
}

export class EsploraBackend implements BitcoinBackend {
    readonly kind = 'esplora' as const
    private readonly base: string

    constructor(url: string) {
        this.base = url.replace(/\/+$/, '')
    }

    private async request(path: string, init?: { method: 'POST'; body: string }): Promise<{ status: number; text: string }> {
        let response: Response
        try {
            response = await fetch(this.base + path, {
                method: init?.method ?? 'GET',
                body: init?.body,
                headers: init ? { 'content-type': 'text/plain' } : undefined,
                signal: AbortSignal.timeout(TIMEOUT_MS),
            })
        } catch (err) {
            throw new EsploraError(`esplora ${path}: ${(err as Error).message}`)
        }
        const text = await response.text()
        return { status: response.status, text }
    }

    /** The body of a 2xx answer; undefined for 404; throws on anything else. */
    private async get(path: string): Promise<string | undefined> {
        const { status, text } = await this.request(path)
        if (status === 404) return undefined
        if (status < 200 || status >= 300) throw new EsploraError(`esplora ${path}: HTTP ${status} ${text.slice(0, 200)}`)
        return text
    }

    private async getJson<T>(path: string): Promise<T | undefined> {
        const text = await this.get(path)
        if (text === undefined) return undefined
        try {
            return JSON.parse(text) as T
        } catch {
            throw new EsploraError(`esplora ${path}: not JSON: ${text.slice(0, 200)}`)
        }
    }

    async tip(): Promise<BlockInfo> {
        const hash = (await this.get('/blocks/tip/hash'))?.trim()
        if (!hash) throw new EsploraError('esplora: no tip')
        const block = await this.getJson<{ id: string; height: number; timestamp: number }>(`/block/${hash}`)
        // The tip moved and the old one was reorged out between the two reads: read again next time.
        if (!block) throw new EsploraError(`esplora: tip ${hash} vanished`)
        return { hash: block.id, height: block.height, time: block.timestamp }
    }

    async blockHash(height: number): Promise<string | undefined> {
        return (await this.get(`/block-height/${height}`))?.trim()
    }

    async addressUtxos(address: string): Promise<Utxo[]> {
        const { status: code, text } = await this.request(`/address/${encodeURIComponent(address)}/utxo`)
        if (code < 200 || code >= 300) throw new EsploraError(`esplora utxo of ${address}: HTTP ${code} ${text.slice(0, 200)}`)
        const list = JSON.parse(text) as { txid: string; vout: number; value: number; status: EsploraStatus }[]
        return list.map((u) => ({ txid: u.txid, vout: u.vout, value: sats(u.value), status: status(u.status) }))
    }

    async tx(txid: string): Promise<TxInfo | undefined> {
        const tx = await this.getJson<EsploraTx>(`/tx/${txid}`)
        if (!tx) return undefined
        return {
            txid: tx.txid,
            vin: tx.vin.map((i) => ({
                txid: i.txid, vout: i.vout, isCoinbase: i.is_coinbase,
                prevoutAddress: i.prevout?.scriptpubkey_address, prevoutValue: i.prevout ? sats(i.prevout.value) : undefined,
            })),
            vout: tx.vout.map((o) => ({ value: sats(o.value), address: o.scriptpubkey_address, scriptHex: o.scriptpubkey })),
            status: status(tx.status),
        }
    }

    async txStatus(txid: string): Promise<TxStatus | undefined> {
        const s = await this.getJson<EsploraStatus>(`/tx/${txid}/status`)
        return s && status(s)
    }

    async outspend(txid: string, vout: number): Promise<OutSpend | undefined> {
        // Esplora answers {spent:false} for outputs of unknown transactions too; ask for the transaction first.
        if (!(await this.txStatus(txid))) return undefined
        const s = await this.getJson<{ spent: boolean; txid?: string; status?: EsploraStatus }>(`/tx/${txid}/outspend/${vout}`)
        if (!s) return undefined
        return s.spent ? { spent: true, txid: s.txid, status: s.status && status(s.status) } : { spent: false }
    }

    /**
     * GET /address/:address/txs (its mempool transactions, then the newest confirmed ones), then
     * /txs/chain/:last for older confirmed ones; each lists its inputs' prevouts, so the address's
     * spends are told apart from what paid it without another request.
     */
    async sentFrom(address: string, limit: number): Promise<string[]> {
        const path = `/address/${encodeURIComponent(address)}/txs`
        const listed: EsploraTx[] = []
        let page = await this.getJson<EsploraTx[]>(path)
        while (page) {
            listed.push(...page)
            const confirmed = page.filter((t) => t.status.confirmed)
            // A page of confirmed ones shorter than Esplora's 25 is the last.
            if (listed.length >= limit || confirmed.length < CHAIN_PAGE) break
            page = await this.getJson<EsploraTx[]>(`${path}/chain/${confirmed[confirmed.length - 1].txid}`)
        }
        if (!page && !listed.length) throw new EsploraError(`esplora ${path}: not found`)
        return listed.slice(0, limit).filter((t) => t.vin.some((i) => i.prevout?.scriptpubkey_address === address)).map((t) => t.txid)
    }

    async feeEstimates(): Promise<FeeEstimates> {
        const text = (await this.get('/fee-estimates')) ?? '{}'
        // Read from the text, not through JSON numbers: the rates are decimals and stay exact.
        const estimates: FeeEstimates = new Map()
        for (const match of text.matchAll(/"(\d+)"\s*:\s*([0-9.eE+-]+)/g)) estimates.set(Number(match[1]), parseSatPerVbyte(match[2]))
        return estimates
    }

    async broadcast(rawHex: string): Promise<string> {
        const { status: code, text } = await this.request('/tx', { method: 'POST', body: rawHex })
        if (code >= 200 && code < 300) return text.trim()
        if (code === 400) {
            const rpc = /RPC error:\s*(\{.*\})\s*$/s.exec(text)
            if (rpc) {
                try {
                    const { code: rpcCode, message } = JSON.parse(rpc[1]) as { code: number; message: string }
                    throw new NodeRejection(typeof rpcCode === 'number' ? rpcCode : null, String(message))
                } catch (err) {
                    if (err instanceof NodeRejection) throw err
                }
            }
            throw new NodeRejection(null, text.trim().slice(0, 500))
        }
        throw new EsploraError(`esplora POST /tx: HTTP ${code} ${text.slice(0, 200)}`)
    }
}
