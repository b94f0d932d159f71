import { RpcClient } from '@subsquid/rpc-client'
import { Pool } from 'pg'
import { KeyedCounter } from '../../common/keyed-counter'
import { Logger } from '../../common/logger'
import { Resolver } from '../../common/url-safety'
import { NftMetadataSettings } from './config'
import { InstanceDiscovery } from './discovery'
import { readDocument } from './document'
import { gatewayHosts, Gateways, viaGateway } from './gateways'
import { boundedGet, HttpGetLimits } from './http-get'
import { mediaFields } from './media-fields'
import { attemptEnded } from './metrics'
import { DueInstance, MetadataStore } from './store'
import { readTokenUris } from './token-uri'

/**
 * The NFT metadata fetcher (docs/nft-metadata.md): a loop beside the indexer's, in the same process,
 * that shares nothing with the batch path but the database and the node (its own connections and
 * its own RPC client), so a stalled metadata server or a slow node read never holds up indexing.
 * Each pass finds new instances (discovery.ts), takes the instances due, reads their token URIs in
 * one JSON-RPC batch, and starts their fetches within the bounds: CONCURRENCY at once, PER_HOST per
 * host, each fetch bounded in time and size (http-get.ts). A fetch counts against every host it asks:
 * the first URL's, and each host a redirect leads to. A redirect to a host at its bound ends the fetch
 * before that host is asked, without an attempt counted; the job waits until every host it is known to
 * ask has room, so token URIs on many hosts that all redirect to one cannot put more than PER_HOST
 * fetches on it.
 */

export interface FetcherOptions {
    settings: NftMetadataSettings
    /** blocks behind the discovery cursor read again (the indexer's finality) */
    marginBlocks: number
    /** pause between passes when there is nothing to start */
    pollMs?: number
    /** tests: a resolver standing in for DNS */
    resolver?: Resolver
}

/** Redirects followed per document, as browsers bound them (a loop ends here, not at the deadline). */
export const MAX_REDIRECTS = 5

/**
 * Times a document's fetch may end at a busy redirect host and wait, unrecorded: each time adds a host to
 * those it waits for, so a chain of at most MAX_REDIRECTS redirects settles; a server redirecting to a
 * new host each time ends here, recorded as the failure `busy`.
 */
const MAX_DEFERRALS = MAX_REDIRECTS + 1

interface Job {
    instance: DueInstance
    uri: string
    /** the hosts the fetch is known to ask (the first URL's, then redirects'); none for what needs no network (`data:`, inline JSON, an unsupported URI) */
    hosts: string[]
    /** times a redirect to a busy host ended it before it was recorded */
    deferrals: number
}

const keyOf = (i: { token: string; token_id: string }) => `${i.token}/${i.token_id}`

export class NftMetadataFetcher {
    private readonly discovery: InstanceDiscovery
    private readonly store: MetadataStore
    private readonly gateways: Gateways
    private readonly limits: HttpGetLimits
    private readonly hosts: KeyedCounter
    /** Instances in hand (waiting or running), by key: not claimed again while held. */
    private readonly held = new Map<string, DueInstance>()
    private readonly waiting: Job[] = []
    private readonly runs = new Set<Promise<void>>()
    private stopped = false
    /** Ends the fetches in flight when the process stops: a server that stalls must not hold up a shutdown. */
    private readonly abort = new AbortController()
    private loop?: Promise<void>
    private wake?: () => void

    constructor(pool: Pool, private readonly rpc: RpcClient, private readonly log: Logger, private readonly options: FetcherOptions) {
        const s = options.settings
        this.discovery = new InstanceDiscovery(pool, { pageSize: 1000, marginBlocks: options.marginBlocks })
        this.store = new MetadataStore(pool, { firstDelaySeconds: s.NFT_METADATA_RETRY_SECONDS, maxDelaySeconds: s.NFT_METADATA_RETRY_MAX_SECONDS, maxAttempts: s.NFT_METADATA_MAX_ATTEMPTS })
        this.gateways = { ipfs: s.NFT_METADATA_IPFS_GATEWAY, arweave: s.NFT_METADATA_ARWEAVE_GATEWAY }
        const listed = (s.NFT_METADATA_ALLOW_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)
        this.limits = {
            timeoutMs: s.NFT_METADATA_TIMEOUT_MS,
            maxBytes: s.NFT_METADATA_MAX_KB * 1024,
            maxRedirects: MAX_REDIRECTS,
            allowPrivate: s.NFT_METADATA_ALLOW_PRIVATE,
            allowedHosts: new Set([...gatewayHosts(this.gateways), ...listed]),
            resolver: options.resolver,
        }
        this.hosts = new KeyedCounter(s.NFT_METADATA_PER_HOST)
    }

    /** Instances waiting for a slot or being fetched. */
    get inHand(): number {
        return this.held.size
    }

    /** Instances due, counted up to cap. */
    dueCount(cap: number): Promise<number> {
        return this.store.dueCount(cap)
    }

    /** Runs passes in the background until stop(); a failing pass is logged and the next one tries again. */
    start(): void {
        this.loop ??= (async () => {
            while (!this.stopped) {
                try {
                    await this.pass()
                } catch (err) {
                    this.log.warn({ err }, 'NFT metadata pass failed; trying again')
                }
                if (this.stopped) break
                await new Promise<void>((resolve) => {
                    const timer = setTimeout(resolve, this.options.pollMs ?? 1000)
                    this.wake = () => {
                        clearTimeout(timer)
                        resolve()
                    }
                })
                this.wake = undefined
            }
        })()
    }

    /** Stops passes and ends the fetches in flight; their instances stay due, no attempt counted. */
    async stop(): Promise<void> {
        this.stopped = true
        this.abort.abort()
        this.wake?.()
        this.waiting.length = 0
        await this.loop
        await this.settled()
    }

    /** Waits until no fetch runs (tests: after a pass, every outcome is written). */
    async settled(): Promise<void> {
        while (this.runs.size) await Promise.all([...this.runs])
    }

    /** One pass: new instances found, due ones taken up to what may be held, their URIs read, their fetches started. */
    async pass(): Promise<void> {
        await this.discovery.scan()
        const room = this.options.settings.NFT_METADATA_CONCURRENCY * 4 - this.held.size
        if (room <= 0) return this.pump()
        const due = await this.store.due(room, [...this.held.values()])
        if (due.length === 0) return this.pump()
        for (const instance of due) this.held.set(keyOf(instance), instance)
        let answers
        try {
            answers = await readTokenUris(this.rpc, due.map((i) => ({ token: i.token, tokenId: i.token_id, type: i.type })))
        } catch (err) {
            // The node failed (not a revert): no attempt is counted, the instances stay due.
            for (const instance of due) this.held.delete(keyOf(instance))
            throw err
        }
        due.forEach((instance, i) => {
            const answer = answers[i]
            if ('error' in answer) this.spawn(() => this.record(instance, null, { ok: false, error: answer.error }))
            else {
                const host = hostOf(answer.uri, this.gateways)
                this.waiting.push({ instance, uri: answer.uri, hosts: host === null ? [] : [host], deferrals: 0 })
            }
        })
        this.pump()
    }

    /** Starts every waiting job whose host has a free slot, while the overall bound allows. */
    private pump(): void {
        const concurrency = this.options.settings.NFT_METADATA_CONCURRENCY
        for (let i = 0; i < this.waiting.length && this.runs.size < concurrency;) {
            const job = this.waiting[i]
            if (job.hosts.some((h) => this.hosts.atCap(h))) {
                i++
                continue
            }
            this.waiting.splice(i, 1)
            const taken = [...job.hosts]
            for (const host of taken) this.hosts.take(host)
            // A redirect's host is taken when it has room (and given back with the rest), else the fetch ends there.
            const admit = (host: string) => {
                if (taken.includes(host)) return true
                if (this.hosts.atCap(host)) return false
                this.hosts.take(host)
                taken.push(host)
                return true
            }
            this.spawn(async () => {
                try {
                    const result = await readDocument(job.uri, { gateways: this.gateways, maxBytes: this.limits.maxBytes, get: (url) => boundedGet(url, this.limits, this.abort.signal, admit) })
                    if (this.stopped) this.held.delete(keyOf(job.instance))
                    else if (!result.ok && result.busyHost && job.deferrals < MAX_DEFERRALS) this.defer(job, taken, result.busyHost)
                    else await this.record(job.instance, job.uri, result)
                } finally {
                    for (const host of taken) this.hosts.release(host)
                }
            })
        }
    }

    /** Back to waiting, now counting against every host it asked and the busy one; no attempt recorded. */
    private defer(job: Job, asked: readonly string[], busyHost: string): void {
        this.waiting.push({ ...job, hosts: [...new Set([...asked, busyHost])], deferrals: job.deferrals + 1 })
    }

    private spawn(work: () => Promise<void>): void {
        const run: Promise<void> = work()
            .catch((err) => this.log.warn({ err }, 'NFT metadata attempt could not be recorded; it stays due'))
            .finally(() => {
                this.runs.delete(run)
                if (!this.stopped) this.pump()
                // Room for more: the next pass need not wait for the poll.
                if (this.waiting.length === 0) this.wake?.()
            })
        this.runs.add(run)
    }

    private async record(instance: DueInstance, uri: string | null, result: { ok: true; metadata: Record<string, unknown> } | { ok: false; error: string }): Promise<void> {
        try {
            if (result.ok) await this.store.fetched(instance, uri!, result.metadata, mediaFields(result.metadata, this.gateways))
            else await this.store.failed(instance, uri, result.error)
            attemptEnded(result.ok ? 'fetched' : 'failed')
        } finally {
            this.held.delete(keyOf(instance))
        }
    }
}

/** The host a URI is fetched from (after the gateways), or null when it needs no network or is no URL. */
function hostOf(uri: string, gateways: Gateways): string | null {
    const url = viaGateway(uri.trim(), gateways)
    if (url === null || !/^https?:\/\//i.test(url)) return null
    try {
        return new URL(url).host.toLowerCase()
    } catch {
        return null
    }
}
